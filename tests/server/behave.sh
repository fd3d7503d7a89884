#!/bin/sh
# A test program for the exec transports: a trivial mind that misbehaves as $1 says
# (ok, crash, hang, garbage, flood, wrongname, refuse, slowfirst, hangafter). It answers
# query after query until its input ends, so it serves in both modes. Its actions say
# which process answered and how many queries that process has read: "pid=P n=N".
mode=${1:-ok}
n=0
while :; do
    name= ended=0
    while IFS= read -r line; do
        case $line in *'<query name="'*) name=${line#*<query name=\"}; name=${name%%\"*} ;; esac
        if [ "$line" = "</xml>" ]; then ended=1; break; fi
    done
    [ "$ended" = 1 ] || exit 0
    n=$((n + 1))
    if [ "$name" = "Get action" ]; then
        case $mode in
            crash) echo "something broke inside" >&2; exit 3 ;;
            hang) sleep 30 ;;
            garbage) echo "hello world, this is not XML"; continue ;;
            flood) head -c 3000000 /dev/zero | tr '\0' 'x'; echo; continue ;;
            wrongname) name="Get state" ;;
            refuse) printf '<xml>\n<response name="Get action">\n<refusal code="bad-parameters">I only take grid states</refusal>\n</response>\n</xml>\n'; continue ;;
            slowfirst) [ "$n" = 2 ] && sleep 0.9 ;;
            hangafter) [ "$n" -ge 3 ] && sleep 30 ;;
        esac
    fi
    printf '<xml>\n<response name="%s">\n' "$name"
    case $name in
        "New run") printf '<data name="mind run ID">p%s</data>\n' "$$" ;;
        "Get action"|"Get state") printf '<data name="action">pid=%s n=%s</data>\n' "$$" "$n" ;;
        "End run") printf '<data name="score">%s</data>\n' "$n" ;;
    esac
    printf '</response>\n</xml>\n'
done
