#!/bin/sh
# gt-worker: the volunteer's command, gt-worker(1): the worker loop of
# gt(7), GT_SHARE/worker, with this command's arguments and name, and the
# gt commands next to it first on PATH. make writes it into the bin folder
# with GT_SHARE the source tree's share/gt, make install with
# PREFIX/share/gt.
PATH=$(dirname "$0"):$PATH GT_PROG=gt-worker
export PATH GT_PROG
exec sh "@GT_SHARE@/worker" "$@"
