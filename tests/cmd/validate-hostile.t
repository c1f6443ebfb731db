#!/bin/sh
# gt-validate against a stranger's well-formed but hostile records (issue
# 17, items 2 to 5): a huge weight, huge visits and scores, names of ten
# megabytes, a game of another board size, komi or rules than the run's,
# and the same moves sent again with another seed, no seed, another
# symmetry field or mirrored. Each is rejected with its reason while the
# honest records around it pass unchanged.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
# two honest 7x7 games (komi 0.5 and 2.5, tromp-taylor), in g12 together
head -n 2 "$GT_SRC/tests/data/records/good.ndjson" > "$T/g12"
head -n 1 "$T/g12" > "$T/g1"
tail -n 1 "$T/g12" > "$T/g2"
reason_of() { jq -r .reason "$1" | paste -sd ' ' -; }
# hostile NAME WANT [gt-validate options...] < RECORD: the record between
# two honest ones is rejected with reason WANT, the honest ones pass
hostile() {
	_name=$1 _want=$2
	shift 2
	cat > "$T/bad"
	cat "$T/g1" "$T/bad" "$T/g2" > "$T/in"
	gt-validate --rejects "$T/rej" "$@" "$T/in" > "$T/out"
	is "$? $(reason_of "$T/rej")" "1 $_want" "$_name: rejected ($_want)"
	check "$_name: the honest records pass unchanged" cmp -s "$T/g12" "$T/out"
}
# jq_rec FILTER: the second good record changed by a jq filter, with a new
# game_id (so that only the check under test can catch it)
jq_rec() { jq -c "$1 | .game_id = \"hostile\"" "$T/g2" > "$T/h"; }

# item 2: a huge weight dominates every batch it is in
jq_rec '.positions[3].weight = 1e30'
hostile "a position weight of 1e30" weight < "$T/h"
jq_rec '.positions[3].weight = 5'
hostile "a weight over --max-weight" weight < "$T/h"
jq_rec '.positions[3].weight = 2'
hostile "--max-weight 1" weight --max-weight 1 < "$T/h"
jq_rec '.positions[3].visits = 2000000000'
hostile "2e9 visits" visits < "$T/h"
jq_rec '.positions[3].visits = 1000'
hostile "1000 visits over --max-visits 500" visits --max-visits 500 < "$T/h"
jq_rec '.score_checkable = false | .positions = [] | .result = "B+1e30" | .winner = "B" | .score = 1e30'
hostile "a game score of 1e30 (unscored)" result --allow-unscored-results < "$T/h"
jq_rec '.score_checkable = false | del(.score) | .result = "B+R" | .winner = "B" | .positions[3].score = 3e38 | del(.positions[].value)'
hostile "a position score of 3e38" score --allow-unscored-results < "$T/h"
jq_rec '.positions[3].root_value = 0 | .positions[3].root_score = 1e9'
hostile "a root_score of 1e9" score < "$T/h"

# item 4: names of ten megabytes, and names that are not plain
/usr/bin/python3 -c '
import json, sys
r = json.loads(open(sys.argv[1]).read())
r["worker"] = "w" * 10000000
r["game_id"] = "hostile"
print(json.dumps(r, separators=(",", ":")))' "$T/g2" > "$T/big"
hostile "a worker name of 10 MB" name < "$T/big"
[ "$(wc -c < "$T/rej")" -lt 1000 ]; ok $? "the reject line does not carry the 10 MB name"
gt-validate --stats="$T/stats" "$T/big" > /dev/null 2>&1
[ "$(wc -c < "$T/stats")" -lt 1000 ]; ok $? "nor does the summary"
jq_rec '.worker = "../../etc"'
hostile "a worker name with slashes" name < "$T/h"
jq_rec '.worker = "a b"'
hostile "a worker name with a space" name < "$T/h"
jq_rec '.model = "m\nx"'
hostile "a model name with a newline" name < "$T/h"
jq -c --arg id "$(printf '%065d' 0)" '.game_id = $id' "$T/g2" > "$T/h"
hostile "a game_id of 65 characters" name < "$T/h"
jq_rec '.worker = "Alice_2.host-1"'
gt-validate "$T/h" > /dev/null; ok $? "a plain name of letters, digits, '.', '_', '-' passes"

# item 3: a game of another board size, komi or rules than the run's
gt-selfplay --model none --games 1 --visits 4 --cheap-visits 2 --board-size 5 --komi 0.5 \
	--rules tromp-taylor --seed 3 --worker mallory > "$T/five" 2> /dev/null
gt-validate "$T/five" > /dev/null; ok $? "fixture: a valid 5x5 game"
hostile "a 5x5 game in a 7x7 run" board-size --board-size 7 < "$T/five"
hostile "a 5x5 game in a 7x7,9x9 run" board-size --board-size 7,9 < "$T/five"
gt-validate --board-size 5,7 "$T/five" > /dev/null; ok $? "--board-size 5,7 takes it"
jq_rec '.komi = 7.5'
hostile "komi 7.5 in a run of komi 0.5 and 2.5" komi --komi 0.5,2.5 < "$T/h"
jq -c '.game_id = "hostile" | .rules = "chinese"' "$T/g1" > "$T/h"
hostile "chinese rules in a tromp-taylor run" rules --rules tromp-taylor < "$T/h"
gt-validate --board-size 7 --komi 0.5 --komi 2.5 --rules tromp-taylor "$T/g12" > "$T/out"
ok $? "the run's own games pass all three"
gt-validate --board-size 20 "$T/g1" > /dev/null 2> "$T/err"
is "$?" 2 "--board-size 20: a usage error"
gt-validate --komi 0.3 "$T/g1" > /dev/null 2> "$T/err"
is "$?" 2 "--komi 0.3: a usage error"
gt-validate --rules go "$T/g1" > /dev/null 2> "$T/err"
is "$? $(cat "$T/err")" '2 gt-validate: --rules: rules "go" not known' "--rules go: a usage error that says why"

# item 5: the same moves sent again as a new game
jq -c '.game_id = "again" | .seed = "1234"' "$T/g1" > "$T/h"
hostile "the same moves with another seed" duplicate-game < "$T/h"
jq -c '.game_id = "again" | del(.seed)' "$T/g1" > "$T/h"
hostile "the same moves with no seed" duplicate-game < "$T/h"
jq -c '.game_id = "again" | .symmetry = 3' "$T/g1" > "$T/h"
hostile "the same moves with another symmetry field" duplicate-game < "$T/h"
jq -c '.game_id = "again" | del(.seed) | .worker = "mallory" | .model = "x"' "$T/g1" > "$T/h"
hostile "the same moves from another worker and model" duplicate-game < "$T/h"
gt-augment --symmetry 5 "$T/g1" | jq -c '.game_id = "again" | del(.symmetry) | del(.seed)' > "$T/mirror"
gt-validate "$T/mirror" > /dev/null; ok $? "fixture: the game mirrored left-right is valid alone"
hostile "the same game mirrored, without seed or symmetry field" duplicate-game < "$T/mirror"
gt-augment --symmetry 2 "$T/g1" | jq -c '.game_id = "again2"' > "$T/rot"
hostile "the same game rotated 180 degrees" duplicate-game < "$T/rot"
gt-validate --seen "$T/seen" "$T/g1" > /dev/null
gt-validate --seen "$T/seen" --rejects "$T/rej" "$T/mirror" > /dev/null
is "$? $(reason_of "$T/rej")" "1 duplicate-game" "--seen: a mirrored copy in a later run is a duplicate"
jq -c '.game_id = "again" | .komi = 1.5 | .result = "B+1" | .score = 1' "$T/g1" > "$T/k15"
gt-validate --allow-unscored-results "$T/g1" "$T/k15" > /dev/null 2> "$T/err"
grep -q duplicate "$T/err"; is $? 1 "the same moves under other komi are not a duplicate"

done_testing
