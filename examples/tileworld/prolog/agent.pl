/*  A T-World agent in SWI-Prolog: the seed's seven-step loop over a TCP socket to the proxy.

    usage: swipl agent.pl [host] [port] [magic]   (defaults 127.0.0.1 3313 prolog-agent:prolog)

    A magic string ending in ":prolog" asks the proxy for percepts in the Prolog form, one fact
    a line:
        tw_msg(header(H), data(environment(grid([[' ','T',3,...],...]),...),
                               agent(id(0),...,location(row(R),column(C)),score(S),battery(B),...),
                               builtin_knowledge(...,costs(...,battery(...)),...))).
    Each line is read as a Prolog term (term_string/2) and the agent looks its fields up by
    name. Without a form suffix the percepts are JSON, read with SWI-Prolog's library(http/json)
    into the same fields. The form is told by the first character of each line.

    It pushes the nearest tile toward the nearest hole: one breadth-first search from the
    robot, then the (tile, hole, push direction) that brings a tile nearer a hole for the
    fewest steps; with batteries on, an empty battery is restored (for half the score).
*/

:- use_module(library(socket)).
:- use_module(library(http/json)).
:- use_module(library(assoc)).
:- use_module(library(apply)).
:- use_module(library(lists)).

:- initialization(main, main).

move(north, -1,  0).
move(south,  1,  0).
move(east,   0,  1).
move(west,   0, -1).

main :-
    current_prolog_flag(argv, Argv),
    arguments(Argv, Host, PortText, Magic),
    (   atom_number(PortText, Port), integer(Port)
    ->  true
    ;   format(user_error, "the port must be a whole number, not ~w~n", [PortText]),
        halt(1)
    ),
    catch(tcp_connect(Host:Port, Pair, []), Error,              % 0) create socket, 1) connect
          ( reason(Error, Reason),
            format(user_error, "cannot reach the proxy at ~w:~w: ~w~n", [Host, Port, Reason]),
            halt(1) )),
    stream_pair(Pair, In, Out),
    set_stream(In, encoding(utf8)),
    set_stream(Out, encoding(utf8)),
    send(Out, "CONNECT:~w", [Magic]),                           % 2) connection string
    play(In, Out, json, Code),
    close(Pair, [force(true)]),
    halt(Code).

arguments([], '127.0.0.1', '3313', 'prolog-agent:prolog').
arguments([Host], Host, '3313', 'prolog-agent:prolog').
arguments([Host, Port], Host, Port, 'prolog-agent:prolog').
arguments([Host, Port, Magic|_], Host, Port, Magic).

%   reason(+Error, -Text): the system's words for a failed connection ("Connection refused").
reason(error(socket_error(_, Message), _), Message) :- !.
reason(error(Formal, _), Text) :- !, term_string(Formal, Text).
reason(Error, Text) :- term_string(Error, Text).

send(Out, Format, Args) :-
    format(Out, Format, Args),
    nl(Out),
    flush_output(Out).

%   play(+In, +Out, +Form, -ExitCode): steps 3 to 6, until the header is end.
play(In, Out, Form0, Code) :-
    read_line_to_string(In, Line),                              % 3) receive a percept
    (   Line == end_of_file
    ->  format(user_error, "proxy closed the connection~n", []),
        Code = 1
    ;   catch(( message(Line, Form, Header, Data) -> Read = true ; Read = false ), Error,
              ( why(Error, Why), Read = false(Why) )),
        (   Read == true
        ->  react(Header, Data, Form, In, Out, Code)
        ;   ( Read = false(Why) -> true ; Why = "not tw_msg(header(H), data(D)) nor {\"header\": H, \"data\": D}" ),
            string_length(Line, N), Shown is min(N, 60),
            sub_string(Line, 0, Shown, _, Start),
            format(user_error, "not a percept (~w): ~q~n", [Why, Start]),
            play(In, Out, Form0, Code)
        )
    ).

%   why(+Error, -Text): a reading error in a few words.
why(error(syntax_error(json(What)), _), Text) :- !, format(string(Text), "not JSON: ~w", [What]).
why(error(syntax_error(What), _), Text) :- !, format(string(Text), "not a Prolog term: ~w", [What]).
why(error(existence_error(key, Key, _), _), Text) :- !, format(string(Text), "no ~w member", [Key]).
why(error(type_error(Type, Value), _), Text) :- !, format(string(Text), "~q is not a ~w", [Value, Type]).
why(Error, Text) :- term_string(Error, Text).

react(end, Data, Form, _, _, 0) :- !,
    percept_score(Data, Score),
    format("END score=~w form=~w~n", [Score, Form]),
    flush_output.
react(message, Text, Form, In, Out, Code) :- !,
    format("heard: ~w~n", [Text]),
    flush_output,
    play(In, Out, Form, Code).
react(error, Text, Form, In, Out, Code) :- !,
    format(user_error, "error from the world: ~w~n", [Text]),
    play(In, Out, Form, Code).
react(Header, Data, Form, In, Out, Code) :-
    (   percept(Data, Percept)
    ->  decide(Percept, Action),                                % 4) decide
        send(Out, "~w", [Action])                               % 5) send the action
    ;   atomic(Data)                                            % pause and other texts
    ->  true
    ;   format(user_error, "a ~w message without the grid or the agent's location~n", [Header]),
        send(Out, "none", [])
    ),
    play(In, Out, Form, Code).                                  % 6) repeat until "end"

% ---- reading a message in either form ------------------------------------------------------

%   message(+Line, -Form, -Header, -Data): Data is the percept as a term in the Prolog form's
%   shape, or the text of a message or error.
message(Line, prolog, Header, Data) :-
    sub_string(Line, 0, 1, _, "t"), !,
    term_string(Term, Line),                    % the point of the Prolog form: it is a term
    Term =.. [tw_msg, header(Header), DataTerm|_],
    prolog_data(DataTerm, Data).
message(Line, json, Header, Data) :-
    atom_json_dict(Line, Dict, [value_string_as(atom)]),
    Header = Dict.header,
    json_data(Dict.data, Data).

prolog_data(data(Text), Text) :- atomic(Text), !.
prolog_data(Data, Data).

%   JSON data turned into the few terms the agent reads, in the Prolog form's shape.
json_data(Text, Text) :- atomic(Text), !.
json_data(Dict, data(environment(grid(Grid)), agent(location(row(R), column(C)), score(S), battery(B)),
                     builtin_knowledge(costs(battery(Costs))))) :-
    Grid = Dict.environment.grid,
    Agent = Dict.agent,
    R = Agent.location.row, C = Agent.location.column,
    S = Agent.score,
    ( B = Agent.get(battery) -> true ; B = null ),
    ( Costs = Dict.builtin_knowledge.costs.get(battery) -> true ; Costs = null ).

%   field(+Term, +Name, -Member): the argument of Term named Name (key(V) or key(M1,M2,...)).
field(Term, Name, Member) :-
    compound(Term),
    Term =.. [_|Args],
    member(Member, Args),
    compound(Member),
    compound_name_arity(Member, Name, _), !.

value(Term, Name, Value) :- field(Term, Name, Member), arg(1, Member, Value).

percept_score(Data, Score) :-
    (   field(Data, agent, Agent), value(Agent, score, Score)
    ->  true
    ;   Score = 0
    ).

%   percept(+Data, -percept(Grid, Row-Column, Battery, BatteryOn)), Grid a term of row terms
%   so that a cell is one arg/3 away.
percept(Data, percept(Grid, R-C, Battery, On)) :-
    field(Data, environment, Env), value(Env, grid, Rows),
    maplist([Row, Cells]>>(Cells =.. [row|Row]), Rows, RowTerms),
    Grid =.. [grid|RowTerms],
    field(Data, agent, Agent), field(Agent, location, Location),
    value(Location, row, R), value(Location, column, C),
    ( value(Agent, battery, Battery) -> true ; Battery = null ),
    (   field(Data, builtin_knowledge, Known), field(Known, costs, Costs),
        field(Costs, battery, BatteryCosts), \+ arg(1, BatteryCosts, null), \+ arg(1, BatteryCosts, false)
    ->  On = true
    ;   On = false
    ).

% ---- deciding -------------------------------------------------------------------------------

cell(Grid, R, C, Value) :-
    R >= 0, C >= 0,
    R1 is R + 1, C1 is C + 1,
    compound_name_arity(Grid, _, Rows), R1 =< Rows,
    arg(R1, Grid, Row),
    compound_name_arity(Row, _, Cols), C1 =< Cols,
    arg(C1, Row, Value).

%   every_cell(+Grid, -R, -C, -Value): the cells one by one, row by row.
every_cell(Grid, R, C, Value) :-
    arg(R1, Grid, Row),
    arg(C1, Row, Value),
    R is R1 - 1, C is C1 - 1.

walkable(Grid, R, C) :-
    cell(Grid, R, C, V),
    ( V == ' ' ; V == 'C' ), !.

decide(percept(_, _, Battery, true), restore) :-
    number(Battery), Battery =< 0, !.         % an empty battery stops every move
decide(percept(Grid, Me, _, _), Action) :-
    reachable(Grid, Me, Dist),
    findall(Cost-Move, push(Grid, Dist, Cost, Move), Pushes),
    (   keysort(Pushes, [_-Action|_])
    ->  true
    ;   move(Action, DR, DC), Me = R-C, R1 is R + DR, C1 is C + DC, walkable(Grid, R1, C1)
    ->  true
    ;   Action = none
    ).

%   push(+Grid, +Dist, -Cost, -FirstMove): a tile, a hole and a push direction that brings
%   the tile nearer the hole, with the robot able to stand behind the tile.
push(Grid, Dist, Cost, First) :-
    every_cell(Grid, TR, TC, 'T'),
    every_cell(Grid, HR, HC, Hole), integer(Hole),
    Gap is abs(TR - HR) + abs(TC - HC),
    move(Name, DR, DC),
    AR is TR + DR, AC is TC + DC,
    abs(AR - HR) + abs(AC - HC) < Gap,
    ( AR-AC == HR-HC -> true ; walkable(Grid, AR, AC) ),
    SR is TR - DR, SC is TC - DC,
    get_assoc(SR-SC, Dist, Steps-Via),
    Cost is Steps + Gap,
    ( Via == none -> First = Name ; First = Via ).

%   reachable(+Grid, +Me, -Dist): one breadth-first search from the robot; Dist maps every
%   reachable cell to Steps-FirstMove (none for the robot's own cell).
reachable(Grid, Me, Dist) :-
    list_to_assoc([Me-(0-none)], Dist0),
    bfs([Me], [], Grid, Dist0, Dist).

bfs([], [], _, Dist, Dist) :- !.
bfs([], Back, Grid, Dist0, Dist) :- !,
    reverse(Back, Front),
    bfs(Front, [], Grid, Dist0, Dist).
bfs([Here|Front], Back0, Grid, Dist0, Dist) :-
    get_assoc(Here, Dist0, Steps-Via),
    Next is Steps + 1,
    foldl(step(Grid, Here, Next, Via), [north, south, east, west], Dist0-Back0, Dist1-Back1),
    bfs(Front, Back1, Grid, Dist1, Dist).

step(Grid, R-C, Steps, Via, Name, Dist0-Back0, Dist-Back) :-
    move(Name, DR, DC),
    R1 is R + DR, C1 is C + DC,
    (   \+ get_assoc(R1-C1, Dist0, _), walkable(Grid, R1, C1)
    ->  ( Via == none -> First = Name ; First = Via ),
        put_assoc(R1-C1, Dist0, Steps-First, Dist),
        Back = [R1-C1|Back0]
    ;   Dist = Dist0, Back = Back0
    ).
