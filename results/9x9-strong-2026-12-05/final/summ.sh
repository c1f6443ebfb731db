#!/bin/sh
# summ.sh RECORDS A_NAME: A's won-drawn-lost, score and gt-elo's 95% interval (tests/elo_ci.py) over complete pairs
f=$1 a=$2
jq -s -r --arg a "$a" 'sort_by(.game // 0) | .[] | (if .winner == "B" then .black elif .winner == "W" then .white else "" end) as $w | if (.winner != "B" and .winner != "W") then 0.5 elif $w == $a then 1 else 0 end' "$f" |
awk 'NR % 2 == 1 { x = $1; next } { s = x + $1; p[s * 2]++; n++; w += (x==1)+($1==1); d += (x==.5)+($1==.5) }
END { printf "%d %d %d %d %d %d %d %d\n", p[0]+0, p[1]+0, p[2]+0, p[3]+0, p[4]+0, w, d, 2*n - w - d }' |
while read p0 p1 p2 p3 p4 w d l; do
  ci=$(/usr/bin/python3 "${GT_SRC:-.}/tests/elo_ci.py" $p0 $p1 $p2 $p3 $p4)
  echo "games $((w+d+l)) won-drawn-lost $w-$d-$l score $(awk -v w=$w -v d=$d -v l=$l 'BEGIN{printf "%.3f", (w+d/2)/(w+d+l)}') pentanomial $p0,$p1,$p2,$p3,$p4 elo95 [$ci]"
done
