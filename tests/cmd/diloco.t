#!/bin/sh
# Decoupled DiLoCo over a file:// store: four learning units and the outer
# process under SIGKILL chaos (tests/cmd/diloco-chaos.sh).
. "${GT_SRC:-.}/tests/cmd/tap.sh"
SD=$T/store
S=file://$SD
. "$GT_SRC/tests/cmd/diloco-chaos.sh"
done_testing
