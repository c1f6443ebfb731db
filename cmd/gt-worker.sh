#!/bin/sh
# gt-worker: the volunteer's command, gt-worker(1): the worker loop of
# gt(7), SHARE/worker, with this command's arguments and name, and the
# gt commands next to it first on PATH. SHARE is $GT_SHARE when set (a
# package unpacked elsewhere, as tests/cmd/deb.t does), else the folder
# make wrote in: the source tree's share/gt for the bin folder,
# PREFIX/share/gt for make install.
PATH=$(dirname "$0"):$PATH GT_PROG=gt-worker
export PATH GT_PROG
exec sh "${GT_SHARE:-@GT_SHARE@}/worker" "$@"
