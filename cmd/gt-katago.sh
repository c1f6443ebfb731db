#!/bin/sh
# gt-katago: KataGo's command line over gt, gt-katago(1). "analysis" runs
# gt-analyze and "gtp" runs gt-gtp with the same arguments (the gt commands
# in this command's folder first on PATH, a symbolic link to it followed),
# "version" says which gt answers. For clients that start `katago analysis`
# or `katago gtp`: point them at this command or at a link to it.
self=$(readlink -f "$0" 2>/dev/null) || self=$0
PATH=$(dirname "$self"):$PATH
export PATH
usage() {
	echo "usage: gt-katago analysis|gtp -config FILE -model FILE [-override-config K=V,...] [...]"
	echo "       gt-katago version"
}
case ${1-} in
analysis) exec gt-analyze "$@" ;;
gtp) exec gt-gtp "$@" ;;
version)
	v=$(gt-gtp --version) || exit 1
	echo "gt ${v#gt-gtp } (KataGo's command line: analysis by gt-analyze, gtp by gt-gtp)"
	;;
-h | --help | help) usage ;;
*)
	echo "gt-katago: want analysis, gtp or version, got '${1-}'" >&2
	usage >&2
	exit 2
	;;
esac
