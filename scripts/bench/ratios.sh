# The benches' ratios, sourced by scripts/bench/run, calibrate, stabilise and align.
# ratio A B: A / B rounded to three decimals. (Until 2026-11-30 bc's `scale=2` cut the ratios to
# two decimals, towards 0: a round of 0.907x showed as .90x and met a 0.9x target it missed, every
# figure up to 0.01 in Lockstep's favour.)
ratio() { printf '%.3f\n' "$(echo "$1 / $2" | bc -l)"; }
# median X...: the middle value (the mean of the two middle ones for an even count).
median() { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else printf "%.3f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
# verdict X TARGET: "met" when X <= TARGET, else "not met by D".
verdict() { awk -v x="$1" -v t="$2" 'BEGIN { if (x <= t + 1e-9) print "met"; else printf "not met by %.3f\n", x - t }'; }
