#!/bin/sh
# gt-train --state killed while it writes the state (issue 17, item 13)
# leaves a full-size temporary file beside it; the next run with that state
# removes the temporaries of the state whose process is gone, and leaves
# those of a live process and of other files alone.
. "${GT_SRC:-.}/tests/cmd/tap.sh"
command -v gt-selfplay >/dev/null || skip_all "gt-selfplay not built"
random_shards 2 "$T/d"; ok $? "data: 2 games in shards"
args="--init b1c8 --data $T/d --batch 16 --seed 4 --checkpoint-every 5 --log-every 5"
mkdir "$T/run"
gt-train $args --steps 5 --state "$T/run/st" -o "$T/a.bin.gz" >/dev/null 2>"$T/e"; ok $? "a first run writes the state"
# what a run killed mid-write leaves: a process that is gone (this one's
# pid, after it exited), its temporary as large as the state
sh -c 'exit 0' & dead=$!; wait $dead
head -c "$(wc -c < "$T/run/st")" /dev/zero > "$T/run/.st.tmp.$dead.Ab1234"
: > "$T/run/.st.tmp.$$.Cd5678"           # a live writer (this shell)
: > "$T/run/.other.tmp.$dead.Ef9012"     # another file's temporary
gt-train $args --steps 10 --state "$T/run/st" -o "$T/b.bin.gz" >/dev/null 2>"$T/e"; ok $? "the next run: exit 0"
grep -q 'resuming at step 5' "$T/e"; ok $? "it resumes from the state"
[ ! -e "$T/run/.st.tmp.$dead.Ab1234" ]; ok $? "the dead run's temporary of the state is removed"
[ -e "$T/run/.st.tmp.$$.Cd5678" ]; ok $? "a live process's temporary is kept"
[ -e "$T/run/.other.tmp.$dead.Ef9012" ]; ok $? "another file's temporary is left alone"
done_testing
