#!/bin/sh
# A task that checkpoints on SIGTERM: sh ckpt.sh FILE appends "start",
# then on SIGTERM "term", and one second later (the checkpoint) "ckpt".
# A task SIGKILLed without its SIGTERM leaves only "start".
f=$1
trap 'echo term >>"$f"; sleep 1; echo ckpt >>"$f"; exit 143' TERM
echo start >>"$f"
while :; do
	# in the background and waited for: the trap runs at once
	sleep 1 &
	wait $!
done
