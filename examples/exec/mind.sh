#!/bin/sh
# A grid-world mind in POSIX shell, one process per query (section 11.4.1, plain CGI):
#
#   wwm serve-exec --mode per-query --port 8101 -- sh examples/exec/mind.sh
#
# It reads one query (XML, up to the line </xml>) on stdin and writes one response on
# stdout. It walks toward the nearest food (see src/wwm/kit/grid.py for the state
# format) and keeps a tally of steps and points on disk between queries, in a file named
# after the run ID it mints in its New run response.

input=$(sed '/^<\/xml>/q')
flat=$(printf '%s\n' "$input" | tr '\n' ' ')

query=$(printf '%s\n' "$flat" | sed -n 's/.*<query name="\([^"]*\)".*/\1/p')

data() {  # the text of <data name="$1">, entities decoded, white space trimmed
    printf '%s\n' "$flat" | sed -n "s/.*<data name=\"$1\">\([^<]*\)<\/data>.*/\1/p" |
        sed "s/&lt;/</g; s/&gt;/>/g; s/&quot;/\"/g; s/&apos;/'/g; s/&amp;/\\&/g; s/^ *//; s/ *$//"
}

respond() {  # respond NAME [key=value ...]
    printf '<xml>\n<response name="%s">\n' "$1"
    shift
    for item in "$@"; do
        printf '<data name="%s">%s</data>\n' "${item%%=*}" "${item#*=}"
    done
    printf '</response>\n</xml>\n'
}

refuse() {  # refuse CODE TEXT
    printf '<xml>\n<response name="%s">\n<refusal code="%s">%s</refusal>\n</response>\n</xml>\n' \
        "$query" "$1" "$2"
    exit 0
}

add() { awk -v a="$1" -v b="$2" 'BEGIN { print a + b }'; }

# every query but New run names a run this program minted: find its file
if [ "$query" != "New run" ]; then
    run=$(data "mind run ID")
    case $run in
        '' | *[!A-Za-z0-9]*) refuse unknown-run "no run with ID '$run' here" ;;
    esac
    [ -f "run-$run" ] || refuse unknown-run "no run with ID '$run' here"
    read -r steps points < "run-$run"
fi

case $query in
"New run")
    run=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
    echo "0 0" > "run-$run"
    respond "New run" "mind run ID=$run"
    ;;
"Get action")
    state=$(data state)
    x=0 y=0 food=
    for item in $state; do
        case $item in
            x=*) x=${item#x=} ;;
            y=*) y=${item#y=} ;;
            food=*) food=${item#food=} ;;
        esac
    done
    best=-1 gx=$x gy=$y
    oldifs=$IFS
    IFS=';'
    for cell in $food; do
        fx=${cell%,*} fy=${cell#*,}
        d=$(( (fx > x ? fx - x : x - fx) + (fy > y ? fy - y : y - fy) ))
        if [ "$best" -lt 0 ] || [ "$d" -lt "$best" ]; then
            best=$d gx=$fx gy=$fy
        fi
    done
    IFS=$oldifs
    dx=$(( gx > x ? gx - x : x - gx ))
    dy=$(( gy > y ? gy - y : y - gy ))
    if [ "$best" -lt 0 ]; then action=stay
    elif [ "$dx" -ge "$dy" ] && [ "$gx" -gt "$x" ]; then action=east
    elif [ "$dx" -ge "$dy" ] && [ "$gx" -lt "$x" ]; then action=west
    elif [ "$gy" -gt "$y" ]; then action=north
    elif [ "$gy" -lt "$y" ]; then action=south
    else action=stay
    fi
    echo "$((steps + 1)) $points" > "run-$run"
    respond "Get action" "action=$action"
    ;;
"Inform it about state")
    score=$(data score)
    echo "$steps $(add "$points" "${score:-0}")" > "run-$run"
    respond "Inform it about state"
    ;;
"Ready to suggest action?")
    respond "Ready to suggest action?" "ready=true"
    ;;
"Get current score")
    respond "Get current score" "score=$points"
    ;;
"Reset score")
    echo "$steps 0" > "run-$run"
    respond "Reset score"
    ;;
"End run")
    rm -f "run-$run"
    respond "End run" "score=$points"
    ;;
"No operation" | "Get display URL")
    respond "$query"
    ;;
*)
    refuse unknown-query "this shell mind does not answer '$query'"
    ;;
esac
