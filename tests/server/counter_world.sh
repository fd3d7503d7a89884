#!/bin/sh
# A test World for serve-exec --role world --mode persistent: the state is "n=<count>",
# an action "+k" adds k and scores k; the run ends when n reaches the "goal" argument.
n=0 goal=10 total=0
while :; do
    name= action= ended=0
    while IFS= read -r line; do
        case $line in
            *'<query name="'*) name=${line#*<query name=\"}; name=${name%%\"*} ;;
            *'<data name="action">'*) action=${line#*<data name=\"action\">}; action=${action%%<*} ;;
            *'<data name="goal">'*) goal=${line#*<data name=\"goal\">}; goal=${goal%%<*} ;;
        esac
        if [ "$line" = "</xml>" ]; then ended=1; break; fi
    done
    [ "$ended" = 1 ] || exit 0
    printf '<xml>\n<response name="%s">\n' "$name"
    case $name in
        "New run") printf '<data name="world run ID">w%s</data>\n' "$$" ;;
        "Get state") printf '<data name="state">n=%s</data>\n' "$n" ;;
        "Execute action")
            k=${action#+}
            n=$((n + k)) total=$((total + k))
            printf '<data name="state">n=%s</data>\n<data name="score">%s</data>\n' "$n" "$k"
            [ "$n" -ge "$goal" ] && printf '<data name="run finished">true</data>\n'
            ;;
        "Get current score"|"End run") printf '<data name="score">%s</data>\n' "$total" ;;
    esac
    printf '</response>\n</xml>\n'
done
