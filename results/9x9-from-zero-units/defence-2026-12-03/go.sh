#!/bin/sh
# the two units runs of issue 31: new aggregation (defaults) against the old (no centre, no influence bound)
S=/work/runs/snap4
cd /work/runs/u31
for k in new old; do
  GT_BIN=$S/bin nice -n -10 sh $S/share/gt/examples/9x9-from-zero -d /work/runs/u31/$k -c /work/runs/u31/$k.cfg -g 40 --units 4 --cpu-hours 0.74 > $k.log 2>&1 &
done
wait
