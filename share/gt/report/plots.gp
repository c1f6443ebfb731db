# plots.gp: the plots of gt-report(1), run as
# `gnuplot -e "narrow = N" vars.gp plots.gp` in a folder that gt-report
# filled with:
#   vars.gp          n_releases, rel_span (seconds from the first release
#                    to the last), have_hours, hours_label; n_hour, hour_from,
#                    hour_to, hour_tics and the same for day (bins, the
#                    x range in seconds since the epoch, the tic step);
#                    rej_n (stacked columns), rej_width (seconds a bar:
#                    3600 or 86400), rej_labels (their names, words of
#                    [A-Za-z0-9._-?]); n_versions
#   elo.dat          steps, chained Elo, release time (s since the epoch),
#                    hours (NaN when unknown), 1 when the release's 95%
#                    interval includes 0 (else 0): one release a line,
#                    oldest first, after "0 0 START 0 0" for the uniform
#                    evaluator when the first release is listed (START:
#                    the run's start, status.json "started")
#   games_hour.dat, games_day.dat   bin start (s), games, positions
#   rejects.dat      bin start (s), then rej_n cumulative counts
#   versions.dat     time (s), version, deltas
# Each plot is an SVG file whose name status.json lists; a plot without data
# is not made. Times are UTC. narrow = 0: 540 pixels wide, for a wide
# window; narrow = 1: the same plots as NAME-narrow.svg, 360 pixels wide
# (status.json "plots_narrow"), which a phone's browser shows at their
# size, so their text stays at 11 pixels.
if (!exists("narrow")) { narrow = 0 }
sfx = narrow ? "-narrow" : ""
W = narrow ? 360 : 540
set terminal svg size W,(narrow ? 300 : 270) font "DejaVu Sans,11" background rgb "white"
set encoding utf8
set termoption noenhanced
set grid lc rgb "#dddddd"
set border lc rgb "#555555"
set key top left opaque box lc rgb "#cccccc"
set style line 1 lc rgb "#1f5fa8" lw 2 pt 7 ps 0.6
set style line 2 lc rgb "#c0392b" lw 2 pt 7 ps 0.6
set style fill solid 0.85 border -1
set datafile missing "NaN"
set format y "%.0f"
set timefmt "%s"

if (n_releases > 0) {
	# a release whose 95% interval includes 0 as an open circle (its
	# match did not show it stronger than the network before it)
	set style line 3 lc rgb "#1f5fa8" lw 2 pt 6 ps 1.1
	# the chain rises: its key where the curve is not
	set key bottom right
	if (narrow) { set xtics font ",10"; set format x "%.0s%c" }
	set output "elo-steps".sfx.".svg"
	set xlabel "training steps"
	set ylabel "Elo, chained"
	plot "elo.dat" using 1:2 with lines ls 1 notitle, \
		"" using 1:($5 == 0 ? $2 : NaN) with points ls 1 title "chained Elo", \
		"" using 1:($5 != 0 ? $2 : NaN) with points ls 3 title "interval includes 0"
	set xtics font ""

	set output "elo-time".sfx.".svg"
	set xdata time
	set format x (rel_span < 600 ? "%H:%M:%S" : rel_span < 86400 ? "%H:%M" : \
		rel_span < 60 * 86400 ? "%m-%d\n%H:%M" : "%Y-%m-%d")
	# one line a tic on a phone, for fewer tics that do not overlap
	if (narrow) { set format x (rel_span < 600 ? "%H:%M:%S" : rel_span < 86400 ? "%H:%M" : \
		rel_span < 365 * 86400 ? "%m-%d" : "%Y-%m"); set xtics font ",10" }
	set xlabel "released (UTC), from the run's start"
	plot "elo.dat" using 3:2 with lines ls 1 notitle, \
		"" using 3:($5 == 0 ? $2 : NaN) with points ls 1 title "chained Elo", \
		"" using 3:($5 != 0 ? $2 : NaN) with points ls 3 title "interval includes 0"
	set xdata
	set xtics font ""
	set format x "% h"

	if (have_hours) {
		set output "elo-hours".sfx.".svg"
		set xlabel hours_label
		plot "elo.dat" using 4:2 with lines ls 2 notitle, \
			"" using 4:($5 == 0 ? $2 : NaN) with points ls 2 title "chained Elo", \
			"" using 4:($5 != 0 ? $2 : NaN) with points ls 2 pt 6 ps 1.1 title "interval includes 0"
	}
}

set key top left
set terminal svg size W,(narrow ? 260 : 230) font "DejaVu Sans,11" background rgb "white"
set xdata time
set format x "%m-%d\n%H:%M"
set ylabel "games"
set yrange [0:*]
if (n_hour > 0) {
	set output "games-hour".sfx.".svg"
	set xlabel "hour (UTC)"
	set boxwidth 3600 * 0.8 absolute
	set xrange [hour_from:hour_to]
	set xtics hour_tics
	plot "games_hour.dat" using ($1 + 1800):2 with boxes lc rgb "#1f5fa8" title "games by hour"
}
if (n_day > 0) {
	set output "games-day".sfx.".svg"
	set xlabel "day (UTC)"
	set format x "%m-%d"
	set boxwidth 86400 * 0.8 absolute
	set xrange [day_from:day_to]
	set xtics day_tics
	plot "games_day.dat" using ($1 + 43200):2 with boxes lc rgb "#1f5fa8" title "games by day"
	set format x "%m-%d\n%H:%M"
}
if (rej_n > 0) {
	set output "rejects".sfx.".svg"
	set xlabel (rej_width == 3600 ? "hour (UTC)" : "day (UTC)")
	set ylabel "records rejected"
	if (narrow) { set key below } else { set key outside right top }
	set boxwidth rej_width * 0.8 absolute
	set xrange [(rej_width == 3600 ? hour_from : day_from):(rej_width == 3600 ? hour_to : day_to)]
	set xtics (rej_width == 3600 ? hour_tics : day_tics)
	if (rej_width != 3600) { set format x "%m-%d" }
	array colors[7] = ["#1f5fa8", "#c0392b", "#27ae60", "#8e44ad", "#e67e22", "#16a085", "#7f8c8d"]
	# the largest sum first, each smaller one drawn over it
	plot for [i=rej_n:1:-1] "rejects.dat" using ($1 + rej_width / 2):(column(i + 1)) \
		with boxes lc rgb colors[i] title word(rej_labels, i)
	set key inside top left
}
if (n_versions > 0) {
	set output "versions".sfx.".svg"
	set xlabel "time (UTC)"
	set ylabel "global version"
	set y2label "deltas joined"
	set y2tics
	set ytics nomirror
	set xrange [*:*]
	set xtics autofreq
	set format x "%m-%d\n%H:%M"
	set yrange [*:*]
	set y2range [0:*]
	plot "versions.dat" using 1:2 with linespoints ls 1 title "version", \
		"" using 1:3 axes x1y2 with impulses ls 2 title "deltas"
}
