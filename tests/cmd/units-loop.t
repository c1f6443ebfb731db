#!/bin/sh
# Self-play trained by learning units over a file:// store: workers, two
# units feeding themselves from the store, the outer process and the
# release step (tests/cmd/units-loop.sh).
. "${GT_SRC:-.}/tests/cmd/tap.sh"
SD=$T/store
S=file://$SD
KEY=
. "$GT_SRC/tests/cmd/units-loop.sh"
done_testing
