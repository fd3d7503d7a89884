#!/usr/bin/perl
# A grid-world Mind as a plain CGI script (section 11.1: minds "can run their programs on
# existing Web servers"), in core Perl: drop it into any web server's CGI directory.
#
#   GET  its URL: the server's card, in JSON (role, queries, "encodings": XML only, trail)
#   POST its URL: one query in the XML of section 11.2.1, answered in XML
#
# It reads XML only: a query in any other encoding is refused with "unsupported-encoding"
# (HTTP 415), and the wwm client then speaks XML to it. It walks toward the nearest food
# (the state format is in src/wwm/kit/grid.py) and keeps each run's tally (steps, points)
# in a file named after the run ID it mints, and the servers that call it (its trail of
# credit, section 7.2) in another, under $WWM_STATE_DIR (default: /tmp/wwm-cgi-mind).
use strict;
use warnings;

my $dir = $ENV{WWM_STATE_DIR} || '/tmp/wwm-cgi-mind';
mkdir $dir unless -d $dir;
my $host = $ENV{HTTP_HOST} || (($ENV{SERVER_NAME} || '127.0.0.1') . ':' . ($ENV{SERVER_PORT} || 80));
my $url = "http://$host" . ($ENV{SCRIPT_NAME} || '/');
my @queries = ('New run', 'Get display URL', 'No operation', 'Ready to suggest action?', 'Get action',
               'Inform it about state', 'Reset score', 'Get current score', 'End run');

sub xml_text { my $t = shift; $t =~ s/&/&amp;/g; $t =~ s/</&lt;/g; $t =~ s/>/&gt;/g; $t =~ s/"/&quot;/g; $t }
sub json_text { my $t = shift; $t =~ s/(["\\])/\\$1/g; $t =~ s/([\x00-\x1f])/sprintf('\\u%04x', ord $1)/ge; "\"$t\"" }

sub answer {  # answer(status, name, [key => value, ...], refusal code, refusal text)
    my ($status, $name, $items, $code, $text) = @_;
    my $body = "<xml wwm=\"1.0\">\n<response name=\"" . xml_text($name) . "\">\n";
    for (my $i = 0; $i < @$items; $i += 2) {
        $body .= "<data name=\"$items->[$i]\">" . xml_text($items->[$i + 1]) . "</data>\n";
    }
    $body .= "<refusal code=\"$code\">" . xml_text($text) . "</refusal>\n" if defined $code;
    $body .= "</response>\n</xml>\n";
    print "Status: $status\r\nContent-Type: application/xml\r\nContent-Length: " . length($body) . "\r\n\r\n$body";
    exit 0;
}

sub callers {
    open(my $fh, '<', "$dir/callers") or return ();
    my @urls = grep { length } map { chomp; $_ } <$fh>;
    close $fh;
    return @urls;
}

if (($ENV{REQUEST_METHOD} || 'GET') ne 'POST') {  # the card
    my $links = join(', ', map { '{"url": ' . json_text($_) . '}' } callers());
    my $names = join(', ', map { json_text($_) } @queries);
    my $card = "{\"wwm\": \"1.0\", \"name\": \"CGI food seeker\", \"role\": \"mind\", \"url\": "
        . json_text($url) . ", \"summary\": \"A grid-world mind in Perl, run as a CGI script by a stock web server.\", "
        . "\"query_sets\": [\"Mind\"], \"queries\": [$names], \"encodings\": [\"application/xml\"], "
        . "\"bindings\": {\"http\": " . json_text($url) . "}, "
        . "\"state_format\": \"grid world state (src/wwm/kit/grid.py)\", "
        . "\"action_format\": \"north, south, east, west or stay\", "
        . "\"arguments\": {\"type\": \"object\", \"properties\": {}}, "
        . "\"credit_trail\": {\"url\": " . json_text($url) . ", \"calls\": [], \"called_by\": [$links]}}\n";
    print "Status: 200\r\nContent-Type: application/json\r\nContent-Length: " . length($card) . "\r\n\r\n$card";
    exit 0;
}

my $body = '';
read(STDIN, $body, $ENV{CONTENT_LENGTH} || 0);
answer(415, 'unknown', [], 'unsupported-encoding', 'this mind reads the XML of section 11.2.1 only')
    unless $body =~ /^\s*</;
my ($query) = $body =~ /<query\s+name="([^"]*)"/;
answer(400, 'unknown', [], 'malformed-message', 'no <query name="..."> element') unless defined $query;
my %data;
while ($body =~ /<data\s+name="([^"]*)"\s*>(.*?)<\/data>/gs) {
    my ($key, $value) = ($1, $2);
    $value =~ s/^\s+|\s+$//g;
    $value =~ s/&lt;/</g; $value =~ s/&gt;/>/g; $value =~ s/&quot;/"/g; $value =~ s/&apos;/'/g;
    $value =~ s/&#(\d+);/chr $1/ge; $value =~ s/&amp;/&/g;
    $data{$key} = $value;
}

my ($run, $steps, $points) = ('', 0, 0);
if ($query ne 'New run') {  # every other query names a run this script minted
    $run = $data{'mind run ID'} // '';
    answer(404, $query, [], 'unknown-run', "no run with ID '$run' here")
        unless $run =~ /^[A-Za-z0-9]+$/ && -f "$dir/run-$run";
    open(my $fh, '<', "$dir/run-$run") or answer(500, $query, [], 'server-error', "cannot read run $run");
    ($steps, $points) = split ' ', scalar <$fh>;
    close $fh;
}

sub tally {
    open(my $fh, '>', "$dir/run-$run") or answer(500, $query, [], 'server-error', "cannot write run $run");
    print $fh "$_[0] $_[1]\n";
    close $fh;
}

if ($query eq 'New run') {
    $run = join '', map { ('a' .. 'z', 0 .. 9)[rand 36] } 1 .. 16;
    tally(0, 0);
    my $caller = $data{'client URL'} // '';
    $caller =~ s/#.*//;
    if (length $caller && !grep { $_ eq $caller } callers()) {
        open(my $fh, '>>', "$dir/callers") or answer(500, $query, [], 'server-error', 'cannot keep the trail');
        print $fh "$caller\n";
        close $fh;
    }
    answer(200, $query, ['mind run ID' => $run]);
} elsif ($query eq 'Get action') {
    my %s = map { split /=/, $_, 2 } grep { /=/ } split ' ', ($data{state} // '');
    my ($x, $y) = ($s{x} // 0, $s{y} // 0);
    my ($best, $gx, $gy) = (-1, $x, $y);
    for my $cell (split /;/, ($s{food} // '')) {
        my ($fx, $fy) = split /,/, $cell;
        next unless defined $fy;
        my $d = abs($fx - $x) + abs($fy - $y);
        ($best, $gx, $gy) = ($d, $fx, $fy) if $best < 0 || $d < $best;
    }
    my $action = 'stay';
    if ($best >= 0) {
        if (abs($gx - $x) >= abs($gy - $y) && $gx != $x) { $action = $gx > $x ? 'east' : 'west' }
        elsif ($gy != $y) { $action = $gy > $y ? 'north' : 'south' }
    }
    tally($steps + 1, $points);
    answer(200, $query, ['action' => $action]);
} elsif ($query eq 'Inform it about state') {
    tally($steps, $points + ($data{score} // 0));
    answer(200, $query, []);
} elsif ($query eq 'Ready to suggest action?') {
    answer(200, $query, ['ready' => 'true']);
} elsif ($query eq 'Get current score') {
    answer(200, $query, ['score' => $points]);
} elsif ($query eq 'Reset score') {
    tally($steps, 0);
    answer(200, $query, []);
} elsif ($query eq 'End run') {
    unlink "$dir/run-$run";
    answer(200, $query, ['score' => $points]);
} elsif ($query eq 'No operation' || $query eq 'Get display URL') {
    answer(200, $query, []);
}
answer(501, $query, [], 'unsupported-query', "this CGI mind does not answer '$query'");
