// A T-World agent in Java 17 (no libraries): the seed's seven-step loop over a TCP socket.
// usage: java Agent.java [host] [port] [magic]     (defaults 127.0.0.1 3313 java-agent)
// It pushes the nearest tile toward the nearest hole, using a small JSON reader below. A magic
// string ending in ":xml" asks the proxy for XML percepts, read with Java's own XML parser
// (javax.xml) into the same maps and lists as the JSON ones.
import java.io.*;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.*;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

public class Agent {
    static final String[] NAMES = {"north", "south", "east", "west"};
    static final int[][] MOVES = {{-1, 0}, {1, 0}, {0, 1}, {0, -1}};

    public static void main(String[] args) throws IOException {
        String host = args.length > 0 ? args[0] : "127.0.0.1";
        int port = args.length > 1 ? Integer.parseInt(args[1]) : 3313;
        String magic = args.length > 2 ? args[2] : "java-agent";
        try (Socket socket = new Socket(host, port)) {                       // 0) + 1) socket, connect
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            OutputStream out = socket.getOutputStream();
            out.write(("CONNECT:" + magic + "\n").getBytes(StandardCharsets.UTF_8));  // 2) connection string
            out.flush();
            String line, form = "json";
            while ((line = in.readLine()) != null) {                         // 3) receive a percept
                if (line.isBlank()) continue;
                String header;
                Object data;
                if (line.startsWith("<")) {                                  // the XML form
                    form = "xml";
                    Element root = Xml.parse(line);
                    header = Xml.child(root, "header").getTextContent();
                    Element d = Xml.child(root, "data");
                    data = d != null ? Xml.value(d) : Xml.child(root, "desc").getTextContent();
                } else {
                    Map<?, ?> percept = (Map<?, ?>) new Json(line).value();
                    header = (String) percept.get("header");
                    data = percept.get("data");
                }
                if (header.equals("end")) {                                  // 6) until "end"
                    Map<?, ?> agent = (Map<?, ?>) ((Map<?, ?>) data).get("agent");
                    System.out.println("END score=" + agent.get("score") + " form=" + form);
                    return;
                }
                if (header.equals("error")) { System.err.println("error from the world: " + data); continue; }
                if (!(data instanceof Map)) continue;                        // messages, pause
                String action = decide((Map<?, ?>) data);                    // 4) decide
                out.write((action + "\n").getBytes(StandardCharsets.UTF_8)); // 5) send the action
                out.flush();
            }
            System.err.println("proxy closed the connection");
            System.exit(1);
        } catch (IOException e) {
            System.err.println("cannot reach the proxy at " + host + ":" + port + ": " + e.getMessage());
            System.exit(1);
        }
    }

    static String decide(Map<?, ?> data) {
        Map<?, ?> costs = (Map<?, ?>) ((Map<?, ?>) data.get("builtin_knowledge")).get("costs");
        Object battery = ((Map<?, ?>) data.get("agent")).get("battery");
        if (costs.get("battery") != null && battery instanceof Number n && n.intValue() <= 0)
            return "restore";  // an empty battery stops every move; restoring costs half the score
        List<?> grid = (List<?>) ((Map<?, ?>) data.get("environment")).get("grid");
        Map<?, ?> loc = (Map<?, ?>) ((Map<?, ?>) data.get("agent")).get("location");
        int rows = grid.size(), cols = ((List<?>) grid.get(0)).size();
        Object[][] g = new Object[rows][cols];
        for (int r = 0; r < rows; r++) g[r] = ((List<?>) grid.get(r)).toArray();
        int mr = ((Number) loc.get("row")).intValue(), mc = ((Number) loc.get("column")).intValue();
        // one breadth-first search from the robot: distance and first move to every cell
        int[][] dist = new int[rows][cols];
        int[][] first = new int[rows][cols];
        for (int[] row : dist) Arrays.fill(row, -1);
        dist[mr][mc] = 0; first[mr][mc] = -1;
        ArrayDeque<int[]> queue = new ArrayDeque<>(List.of(new int[]{mr, mc}));
        while (!queue.isEmpty()) {
            int[] h = queue.poll();
            for (int m = 0; m < 4; m++) {
                int r = h[0] + MOVES[m][0], c = h[1] + MOVES[m][1];
                if (walkable(g, r, c) && dist[r][c] < 0) {
                    dist[r][c] = dist[h[0]][h[1]] + 1;
                    first[r][c] = first[h[0]][h[1]] < 0 ? m : first[h[0]][h[1]];
                    queue.add(new int[]{r, c});
                }
            }
        }
        int bestCost = Integer.MAX_VALUE; String best = null;
        for (int tr = 0; tr < rows; tr++) for (int tc = 0; tc < cols; tc++) {
            if (!"T".equals(g[tr][tc])) continue;
            for (int hr = 0; hr < rows; hr++) for (int hc = 0; hc < cols; hc++) {
                if (!(g[hr][hc] instanceof Number)) continue;
                int gap = Math.abs(tr - hr) + Math.abs(tc - hc);
                for (int m = 0; m < 4; m++) {
                    int ar = tr + MOVES[m][0], ac = tc + MOVES[m][1], sr = tr - MOVES[m][0], sc = tc - MOVES[m][1];
                    if (Math.abs(ar - hr) + Math.abs(ac - hc) >= gap) continue;
                    if (!(ar == hr && ac == hc) && !walkable(g, ar, ac)) continue;
                    if (sr < 0 || sc < 0 || sr >= rows || sc >= cols || dist[sr][sc] < 0) continue;
                    if (dist[sr][sc] + gap < bestCost) {
                        bestCost = dist[sr][sc] + gap;
                        best = NAMES[first[sr][sc] < 0 ? m : first[sr][sc]];
                    }
                }
            }
        }
        if (best != null) return best;
        for (int m = 0; m < 4; m++) if (walkable(g, mr + MOVES[m][0], mc + MOVES[m][1])) return NAMES[m];
        return "none";
    }

    static boolean walkable(Object[][] g, int r, int c) {
        return r >= 0 && c >= 0 && r < g.length && c < g[0].length && (" ".equals(g[r][c]) || "C".equals(g[r][c]));
    }

    /** The XML form (tw_msg.xsd) to the same maps and lists as the JSON: the lists named in
     *  WRAPPED are wrapped in an element of their name, those in IN_PLACE repeat in place;
     *  scalars are attributes, or a child's single "value" attribute. */
    static final class Xml {
        static final Set<String> WRAPPED = Set.of("grid", "holes", "tiles", "obstacles", "agents", "battery_chargers",
                                                  "teams", "agents_location", "messages", "row");
        static final Map<String, String> IN_PLACE = Map.of("cell", "cells", "member", "members", "range", "range",
                                                           "prob", "prob");

        static Element parse(String line) {
            try {
                DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
                factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
                return factory.newDocumentBuilder().parse(new InputSource(new StringReader(line))).getDocumentElement();
            } catch (Exception e) {
                System.err.println("not an XML percept: " + e.getMessage());
                System.exit(1);
                return null;
            }
        }

        static List<Element> children(Element e) {
            List<Element> out = new ArrayList<>();
            NodeList nodes = e.getChildNodes();
            for (int i = 0; i < nodes.getLength(); i++)
                if (nodes.item(i).getNodeType() == Node.ELEMENT_NODE) out.add((Element) nodes.item(i));
            return out;
        }

        static Element child(Element e, String tag) {
            for (Element c : children(e)) if (c.getTagName().equals(tag)) return c;
            return null;
        }

        @SuppressWarnings("unchecked")
        static Object value(Element e) {
            List<Element> kids = children(e);
            if (WRAPPED.contains(e.getTagName())) {
                List<Object> list = new ArrayList<>();
                for (Element c : kids) list.add(value(c));
                return list;
            }
            NamedNodeMap attrs = e.getAttributes();
            if (kids.isEmpty() && attrs.getLength() == 1 && attrs.item(0).getNodeName().equals("value"))
                return scalar(attrs.item(0).getNodeValue());
            Map<String, Object> map = new LinkedHashMap<>();
            for (int i = 0; i < attrs.getLength(); i++) map.put(attrs.item(i).getNodeName(), scalar(attrs.item(i).getNodeValue()));
            for (Element c : kids) {
                String plural = IN_PLACE.get(c.getTagName());
                if (plural != null) ((List<Object>) map.computeIfAbsent(plural, k -> new ArrayList<>())).add(value(c));
                else map.put(c.getTagName(), value(c));
            }
            return map;
        }

        static Object scalar(String s) {
            if (s.matches("-?\\d+")) return Long.parseLong(s);
            if (s.matches("-?\\d+\\.\\d*([eE][-+]?\\d+)?")) return Double.parseDouble(s);
            if (s.equals("true") || s.equals("false")) return Boolean.parseBoolean(s);
            return s;
        }
    }

    /** A minimal JSON reader: objects to maps, arrays to lists, numbers to Long/Double. */
    static final class Json {
        private final String s; private int i;
        Json(String s) { this.s = s; }

        Object value() {
            skip();
            char ch = s.charAt(i);
            if (ch == '{') {
                Map<String, Object> map = new LinkedHashMap<>(); i++; skip();
                if (s.charAt(i) == '}') { i++; return map; }
                while (true) {
                    String k = (String) value(); skip(); i++;  // ':'
                    map.put(k, value()); skip();
                    if (s.charAt(i++) == '}') return map;
                }
            }
            if (ch == '[') {
                List<Object> list = new ArrayList<>(); i++; skip();
                if (s.charAt(i) == ']') { i++; return list; }
                while (true) {
                    list.add(value()); skip();
                    if (s.charAt(i++) == ']') return list;
                }
            }
            if (ch == '"') {
                StringBuilder b = new StringBuilder(); i++;
                while (s.charAt(i) != '"') {
                    char c = s.charAt(i++);
                    if (c == '\\') {
                        char e = s.charAt(i++);
                        switch (e) {
                            case 'n' -> b.append('\n'); case 't' -> b.append('\t'); case 'r' -> b.append('\r');
                            case 'b' -> b.append('\b'); case 'f' -> b.append('\f');
                            case 'u' -> { b.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; }
                            default -> b.append(e);
                        }
                    } else b.append(c);
                }
                i++;
                return b.toString();
            }
            if (s.startsWith("true", i)) { i += 4; return Boolean.TRUE; }
            if (s.startsWith("false", i)) { i += 5; return Boolean.FALSE; }
            if (s.startsWith("null", i)) { i += 4; return null; }
            int start = i;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
            String num = s.substring(start, i);
            return num.matches("-?\\d+") ? (Object) Long.parseLong(num) : (Object) Double.parseDouble(num);
        }

        private void skip() { while (Character.isWhitespace(s.charAt(i))) i++; }
    }
}
