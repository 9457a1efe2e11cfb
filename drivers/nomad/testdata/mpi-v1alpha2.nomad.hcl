# jobshift: unwatched: for nomad job run; jobshift convert -watched writes what jobshift run submits
#
# shape: unwatched (nothing outside the job: nomad job run, run -detach); rendezvous barrier
# group launcher (raw_exec): env template over registrations; judged by none in the job (a controller or watch -enforce)
#   task jobshift-barrier (prestart)
#   task main > ssh > restart loop > command
# group worker (raw_exec): env template over registrations; judged by none in the job (a controller or watch -enforce)
#   task jobshift-barrier (prestart)
#   task main > ssh > command
# why: rendezvous barrier: nobody watches the job to write a snapshot (convert -watched, or run, gives the snapshot)
# why (launcher): env: template over the group services (no snapshot)
# why (worker): env: template over the group services (no snapshot)

job "alice~allreduce" {
  type        = "batch"
  datacenters = ["dc1"]
  group "launcher" {
    count = 1
    task "jobshift-barrier" {
      driver = "raw_exec"
      lifecycle {
        hook = "prestart"
      }
      config {
        args    = ["-c", "n=0\nwhile :; do\n  l=\n  IFS= read -r l < \"$NOMAD_TASK_DIR/barrier\" 2>/dev/null\n  [ \"$l\" = READY ] && exit 0\n  n=$((n+1))\n  if [ \"$n\" -gt 1200 ]; then\n    echo \"jobshift: barrier timeout: after 2m0s not every task of job alice~allreduce was placed and registered; still missing: $l. Check 'nomad job status alice~allreduce' for allocations that could not be placed (not enough CPU, memory or GPUs) or that ended early; the timeout is nomad.barrier_timeout in the site config.\" >&2\n    exit 1\n  fi\n  sleep 0.1\ndone\n"]
        command = "/bin/sh"
      }
      resources {
        cpu    = 20
        memory = 32
      }
      template {
        destination = "local/barrier"
        data        = <<EOT
{{- $job := env "NOMAD_JOB_ID" -}}
{{- $missing := "" -}}
{{- range $s := nomadService "alice-allreduce-launcher-ssh-0" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "0/" .) true }}{{ end }}{{ end }}{{ end -}}
{{- range $i := loop 1 }}{{ if not (scratch.Key (print "0/idx-" $i)) }}{{ $missing = printf "%s %s-%d" $missing "launcher" $i }}{{ end }}{{ end -}}
{{- range $s := nomadService "alice-allreduce-worker-ssh-0" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "1/" .) true }}{{ end }}{{ end }}{{ end -}}
{{- range $i := loop 2 }}{{ if not (scratch.Key (print "1/idx-" $i)) }}{{ $missing = printf "%s %s-%d" $missing "worker" $i }}{{ end }}{{ end -}}
{{ if eq $missing "" }}READY{{ else }}WAITING{{ $missing }}{{ end }}
EOT
        change_mode = "noop"
        wait {
          min = "0s"
          max = "0s"
        }
      }
    }
    task "main" {
      driver      = "raw_exec"
      kill_signal = "SIGTERM"
      config {
        args    = ["$${NOMAD_TASK_DIR}/jobshift-sshemu.sh", "--", "/bin/sh", "-c", "_t_kind=none\n_t_gang=0\n_t_bl=6\n_t_classes=uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuttpuuppuuuupuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu\n_t_bo_init=10000 _t_bo_max=300000\n_t_tretry_0=0\n_t_tretry_1=0\n_t_role=0\n_s_frac=\n_s_pid=\njs_counter_add() {\n\t_l_n=0\n\tuntil mkdir \"$1.lock\" 2>/dev/null; do\n\t\tsleep 0.05\n\t\t_l_n=$((_l_n + 1))\n\t\t[ \"$_l_n\" -gt 200 ] && rmdir \"$1.lock\" 2>/dev/null\n\tdone\n\t_l_v=$(cat \"$1\" 2>/dev/null || echo 0)\n\techo $((_l_v + 1)) >\"$1\"\n\trmdir \"$1.lock\"\n}\njs_nth_is() {\n\t_q_p=\n\t_q_k=1\n\twhile [ \"$_q_k\" -lt \"$2\" ]; do\n\t\t_q_p=\"$_q_p?\"\n\t\t_q_k=$((_q_k + 1))\n\tdone\n\tcase $1 in\n\t$_q_p\"$3\"*) return 0 ;;\n\tesac\n\treturn 1\n}\njs_restart() {\n\tcase $_t_kind in\n\tpai)\n\t\t[ \"$_t_gang\" = 1 ] && return 1\n\t\t[ \"$2\" = 0 ] && return 1\n\t\tif [ \"$2\" -ge 0 ] && [ \"$2\" -le 255 ]; then\n\t\t\tjs_nth_is \"$_t_classes\" $(($2 + 1)) t && return 0\n\t\t\tjs_nth_is \"$_t_classes\" $(($2 + 1)) p && return 1\n\t\tfi\n\t\teval \"_r_max=\\$_t_tretry_$1\"\n\t\t_r_f=$3/restarts.$1.$4\n\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\tif [ \"$_r_max\" = -1 ] || [ \"$_r_so\" -lt \"$_r_max\" ]; then\n\t\t\tjs_counter_add \"$_r_f\"\n\t\t\treturn 0\n\t\tfi\n\t\treturn 1\n\t\t;;\n\ttf | pytorch)\n\t\t[ \"$2\" -ge 0 ] && [ \"$2\" -le 255 ] || return 1\n\t\teval \"_r_rs=\\$_t_rs_$1\"\n\t\tjs_nth_is \"$_r_rs\" $(($2 + 1)) 1 || return 1\n\t\t_r_f=$3/restarts.job\n\t\tif [ \"$_t_bl\" -ge 0 ]; then\n\t\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\t\t[ $((_r_so + 1)) -ge \"$_t_bl\" ] && return 1\n\t\tfi\n\t\tjs_counter_add \"$_r_f\"\n\t\treturn 0\n\t\t;;\n\tesac\n\treturn 1\n}\njs_backoff() {\n\tif [ \"$1\" -le 0 ] || [ \"$2\" -gt $((2 * _t_bo_max)) ]; then\n\t\t_b_wait=0\n\t\t_b_streak=1\n\t\treturn\n\tfi\n\t_b_wait=$_t_bo_init\n\t_b_n=1\n\twhile [ \"$_b_n\" -lt \"$1\" ] && [ \"$_b_wait\" -lt \"$_t_bo_max\" ]; do\n\t\t_b_wait=$((_b_wait * 2))\n\t\t_b_n=$((_b_n + 1))\n\tdone\n\t[ \"$_b_wait\" -gt \"$_t_bo_max\" ] && _b_wait=$_t_bo_max\n\t_b_streak=$(($1 + 1))\n}\njs_now_ms() {\n\t_n_ns=$(date +%s%N)\n\tcase $_n_ns in\n\t'' | *[!0-9]*) echo $(($(date +%s) * 1000)) ;;\n\t*) echo $((_n_ns / 1000000)) ;;\n\tesac\n}\njs_sleep_ms() {\n\t[ \"$_k_stop\" = 1 ] && return 0\n\tif [ -z \"$_s_frac\" ]; then\n\t\t_s_frac=0\n\t\tsleep 0.001 2>/dev/null && _s_frac=1\n\tfi\n\tif [ \"$_s_frac\" = 1 ]; then\n\t\tsleep \"$(($1 / 1000)).$(printf '%03d' $(($1 % 1000)))\" &\n\telse\n\t\tsleep $((($1 + 999) / 1000)) &\n\tfi\n\t_s_pid=$!\n\t[ \"$_k_stop\" = 1 ] && kill -KILL \"$_s_pid\" 2>/dev/null\n\twait \"$_s_pid\"\n\tkill -KILL \"$_s_pid\" 2>/dev/null\n\twait \"$_s_pid\" 2>/dev/null\n\t_s_pid=\n\treturn 0\n}\n_k_stop=0\n_k_child=\n_k_setsid=\ncommand -v setsid >/dev/null 2>&1 && _k_setsid=setsid\ntrap '_k_stop=1; [ -n \"$_k_child\" ] && { kill -TERM \"-$_k_child\" 2>/dev/null || kill -TERM \"$_k_child\" 2>/dev/null; }; [ -n \"$_s_pid\" ] && kill -KILL \"$_s_pid\" 2>/dev/null' TERM INT\n_k_dir=$NOMAD_TASK_DIR\n[ -n \"$_k_dir\" ] || _k_dir=.\n_k_i=$NOMAD_ALLOC_INDEX\n[ -n \"$_k_i\" ] || _k_i=0\n_k_streak=0\n_k_rc=0\nwhile :; do\n\t_k_t0=$(js_now_ms)\n\t$_k_setsid \"$@\" &\n\t_k_child=$!\n\t[ \"$_k_stop\" = 1 ] && { kill -TERM \"-$_k_child\" 2>/dev/null || kill -TERM \"$_k_child\" 2>/dev/null; }\n\twait \"$_k_child\"\n\t_k_rc=$?\n\twhile kill -0 \"$_k_child\" 2>/dev/null; do\n\t\twait \"$_k_child\"\n\t\t_k_rc=$?\n\tdone\n\tif [ \"$_k_stop\" = 1 ]; then\n\t\twhile kill -0 \"-$_k_child\" 2>/dev/null; do sleep 0.1; done\n\tfi\n\t_k_child=\n\t_k_t1=$(js_now_ms)\n\techo \"$_k_t0 $_k_t1 $_k_rc\" >>\"$_k_dir/jobshift-runs\"\n\t[ \"$_k_stop\" = 1 ] && break\n\tjs_restart \"$_t_role\" \"$_k_rc\" \"$_k_dir\" \"$_k_i\" || break\n\tjs_backoff \"$_k_streak\" $((_k_t1 - _k_t0))\n\t_k_streak=$_b_streak\n\tprintf 'jobshift: task exited with %s; restarting it in place after %s ms (kubelet CrashLoopBackOff)\\n' \"$_k_rc\" \"$_b_wait\" >&2\n\tif [ \"$_b_wait\" -gt 0 ]; then\n\t\tjs_sleep_ms \"$_b_wait\"\n\t\t[ \"$_k_stop\" = 1 ] && break\n\tfi\ndone\nexit \"$_k_rc\"\n", "jobshift-restart", "mpirun", "-np", "4", "python3", "allreduce.py"]
        command = "sh"
      }
      env {
        CUDA_VISIBLE_DEVICES = ""
        JOBSHIFT_SSH_DIR     = "$${NOMAD_TASK_DIR}/ssh"
        JOBSHIFT_SSH_KEY     = "$${NOMAD_SECRETS_DIR}/jobshift-ssh-key"
      }
      resources {
      }
      template {
        destination = "local/jobshift.env"
        data        = <<EOT
{{- $h := "" -}}{{- $all := nomadService "alice-allreduce-launcher-ssh-0" -}}{{- range $i := loop 1 -}}{{- range $all -}}{{- if and (eq .JobID (env "NOMAD_JOB_ID")) (.Tags | contains (printf "idx-%d" $i)) -}}{{- if ne $h "" }}{{ $h = printf "%s," $h }}{{ end -}}{{- $h = printf "%s%s:%d" $h .Address .Port -}}{{- end -}}{{- end -}}{{- end }}
JS_HOSTS_LAUNCHER={{ $h }}
{{- $h := "" -}}{{- $all := nomadService "alice-allreduce-worker-ssh-0" -}}{{- range $i := loop 2 -}}{{- range $all -}}{{- if and (eq .JobID (env "NOMAD_JOB_ID")) (.Tags | contains (printf "idx-%d" $i)) -}}{{- if ne $h "" }}{{ $h = printf "%s," $h }}{{ end -}}{{- $h = printf "%s%s:%d" $h .Address .Port -}}{{- end -}}{{- end -}}{{- end }}
JS_HOSTS_WORKER={{ $h }}
JS_ROLE=launcher
JS_INDEX={{ env "NOMAD_ALLOC_INDEX" }}
EOT
        change_mode = "noop"
        once        = true
        env         = true
      }
      template {
        destination = "local/jobshift-sshemu.sh"
        data        = "{{ base64Decode \"IyBqb2JzaGlmdCBzc2ggZW11bGF0aW9uOiB3aGF0IE9wZW5QQUkncyBzc2ggcnVudGltZSBwbHVnaW4gYW5kCiMgbXBpLW9wZXJhdG9yJ3MgcG9kcyBnYXZlIGV2ZXJ5IHRhc2ssIHJlYnVpbHQgd2l0aG91dCByb290IGFuZCB3aXRob3V0CiMgdG91Y2hpbmcgdGhlIHVzZXIncyB+Ly5zc2g6CiMgICAtIGFuIHNzaGQgb2YgdGhlIHRhc2sncyBvd24gb24gaXRzIGBzc2hgIHBvcnQsIGFjY2VwdGluZyB0aGUgam9iJ3Mga2V5CiMgICAgIChhbmQgdGhlIHVzZXJzc2ggcHVibGljIGtleXMpLCB3aXRoIGEgaG9zdCBrZXkgbWFkZSBoZXJlOwojICAgLSBhbiBzc2ggY2xpZW50IGNvbmZpZyB3aG9zZSBIb3N0IGVudHJpZXMgbWFwIGV2ZXJ5IHBlZXIncyBhbGlhcwojICAgICAoPHJvbGU+LTxpPiwgb3IgdGhlIE1QSUpvYiBwb2QgaG9zdCBuYW1lcykgdG8gaXRzIGFkZHJlc3MgYW5kIHBvcnQsCiMgICAgIHVzZWQgdGhyb3VnaCBhbiBgc3NoYCBlYXJseSBvbiBQQVRILCBzbyBgc3NoIHdvcmtlci0wYCwgbXBpcnVuIGFuZAojICAgICBob3Jvdm9kcnVuIHJlYWNoIHRoZSBwZWVycyB1bmNoYW5nZWQ7CiMgICAtIGZvciBhbiBNUElKb2IgdGFzaywgdGhlIGhvc3RmaWxlIChhbmQga3ViZXhlYy5zaCkgaW4gdGhlIG1waSBkaXI7CiMgICAtIHNzaGJhcnJpZXI6IHRoZSBjb21tYW5kIHN0YXJ0cyBvbmNlIGV2ZXJ5IHBlZXIncyBzc2hkIGFuc3dlcnMuCiMgVGhlbiBpdCBleGVjcyB0aGUgY29tbWFuZCAob3IsIHdpdGggLS1pZGxlLCBydW5zIHRoZSBzc2hkIGluIHRoZQojIGZvcmVncm91bmQ6IGFuIE1QSUpvYiB3b3JrZXIgd2hvc2Ugb3duIGNvbW1hbmQgd2FzIGFuIHNzaGQpLgojCiMgVXNhZ2U6IHNoIHNzaGVtdS5zaCBbLS1pZGxlXSBbLS1dIGNvbW1hbmQgW2FyZ3MuLi5dCiMgRW52aXJvbm1lbnQgKHNlZSBkcml2ZXJzL3NzaGVtdSBhbmQgdHJhbnNsYXRlL2NvbnRyYWN0L3NzaC5nbyk6CiMgICBKT0JTSElGVF9TU0hfSE9TVFMgICAiPGFkZHI+IDxwb3J0PiA8YWxpYXM+Li4uIiwgZW50cmllcyBqb2luZWQgYnkgJywnCiMgICBKT0JTSElGVF9TU0hfU0VMRiAgICB0aGlzIHRhc2sncyBmaXJzdCBhbGlhcwojICAgSk9CU0hJRlRfU1NIX0tFWSAgICAgdGhlIGpvYidzIHByaXZhdGUga2V5IGZpbGUgKGEgc2VjcmV0OyByZWFkIG9ubHkpCiMgICBKT0JTSElGVF9TU0hfRElSICAgICB3aGVyZSB0aGlzIHRhc2sncyBzc2hkIGFuZCBjbGllbnQgZmlsZXMgZ28KIyAgICAgICAgICAgICAgICAgICAgICAgICgiIiA9IGEgbmV3IGRpcmVjdG9yeSB1bmRlciAkVE1QRElSKQojICAgSk9CU0hJRlRfU1NIX1VTRVJLRVlTICBleHRyYSBhdXRob3JpemVkIHB1YmxpYyBrZXlzLCBvbmUgcGVyIGxpbmUKIyAgIEpPQlNISUZUX1NTSF9CQVJSSUVSIHNlY29uZHMgdG8gd2FpdCBmb3IgZXZlcnkgcGVlciAoIiIgPSBubyBiYXJyaWVyKQojICAgSk9CU0hJRlRfTVBJX0RJUiwgSk9CU0hJRlRfTVBJX0hPU1RGSUxFICBob3N0ZmlsZSBsaW5lcyBqb2luZWQgYnkgJywnCiMgICBKT0JTSElGVF9NUElSVU4gICAgICBhIHByb2dyYW0gcnVuIGFzIG1waXJ1bi9tcGlleGVjL29ydGVydW4gKCIiID0gbm9uZSkKIyBFeGl0IGNvZGVzOiAyNDkgYmFycmllciB0aW1lb3V0IChPcGVuUEFJJ3MgY29kZSksIDEgc2V0dXAgZmFpbHVyZS4KCnNldCAtdQp1bWFzayAwNzcKCmZhaWwoKSB7CglwcmludGYgJ2pvYnNoaWZ0IHNzaCBlbXVsYXRpb246ICVzXG4nICIkKiIgPiYyCgltcGlfcmVsZWFzZQoJZXhpdCAxCn0KCiMgVGhlIE1QSSBkaXJlY3RvcnkgbGl2ZXMgYXMgbG9uZyBhcyBhIHRhc2sgdGhhdCB1c2VzIGl0OiBlYWNoIHRhc2sgaG9sZHMKIyBhIG1hcmtlciBpbiBpdCwgYW5kIHRoZSBsYXN0IG9uZSB0byBlbmQgcmVtb3ZlcyB0aGUgZGlyZWN0b3J5IChzZXZlcmFsCiMgdGFza3Mgb2YgYSBqb2IgbWF5IHNoYXJlIGl0IG9uIG9uZSBob3N0LCBlLmcuIE5vbWFkJ3MgL3RtcCBwYXRoKS4KbWFya2VyPScnCm1waV9yZWxlYXNlKCkgewoJWyAtbiAiJG1hcmtlciIgXSB8fCByZXR1cm4gMAoJcm0gLWYgIiRtYXJrZXIiCgltYXJrZXI9JycKCWZvciBtIGluICIkbWRpciIvLnRhc2suKjsgZG8KCQlbIC1lICIkbSIgXSAmJiByZXR1cm4gMAoJZG9uZQoJcm0gLXJmICIkbWRpciIKfQoKaWRsZT0wCmlmIFsgIiR7MTotfSIgPSAtLWlkbGUgXTsgdGhlbgoJaWRsZT0xCglzaGlmdApmaQppZiBbICIkezE6LX0iID0gLS0gXTsgdGhlbgoJc2hpZnQKZmkKCmhvc3RzPSR7Sk9CU0hJRlRfU1NIX0hPU1RTOj99Cm1lPSR7Sk9CU0hJRlRfU1NIX1NFTEY6P30Ka2V5PSR7Sk9CU0hJRlRfU1NIX0tFWTo/fQpkaXI9JHtKT0JTSElGVF9TU0hfRElSOi19CmlmIFsgLXogIiRkaXIiIF07IHRoZW4KCWRpcj0kKG1rdGVtcCAtZCAiJHtUTVBESVI6LS90bXB9L2pvYnNoaWZ0LXNzaC5YWFhYWFgiKSB8fCBmYWlsICJjYW5ub3QgbWFrZSBhIGRpcmVjdG9yeSB1bmRlciAke1RNUERJUjotL3RtcH0iCmZpCm1rZGlyIC1wICIkZGlyL2JpbiIgfHwgZmFpbCAiY2Fubm90IG1ha2UgJGRpciIKY2htb2QgNzAwICIkZGlyIiB8fCBmYWlsICJjYW5ub3QgcHJvdGVjdCAkZGlyIgoKc3NoZD0ke0pPQlNISUZUX1NTSEQ6LX0KaWYgWyAteiAiJHNzaGQiIF07IHRoZW4KCXNzaGQ9JChjb21tYW5kIC12IHNzaGQpIHx8IHNzaGQ9L3Vzci9zYmluL3NzaGQKZmkKc3NoPSQoY29tbWFuZCAtdiBzc2gpIHx8IGZhaWwgInNzaCBub3QgZm91bmQgb24gUEFUSCAoaW5zdGFsbCBvcGVuc3NoLWNsaWVudCkiCmtleWdlbj0kKGNvbW1hbmQgLXYgc3NoLWtleWdlbikgfHwgZmFpbCAic3NoLWtleWdlbiBub3QgZm91bmQgb24gUEFUSCAoaW5zdGFsbCBvcGVuc3NoLWNsaWVudCkiClsgLXggIiRzc2hkIiBdIHx8IGZhaWwgInNzaGQgbm90IGZvdW5kIChpbnN0YWxsIG9wZW5zc2gtc2VydmVyLCBvciBzZXQgSk9CU0hJRlRfU1NIRCkiCnVzZXI9JChpZCAtdW4pIHx8IGZhaWwgImNhbm5vdCB0ZWxsIHRoZSB1c2VyIG5hbWUiCgojIHEgcXVvdGVzIGEgdmFsdWUgZm9yIHNzaF9jb25maWcgLyBzc2hkX2NvbmZpZyAoIi4uLiI7ICclJyBkb3VibGVkIGZvciB0aGUKIyB0b2tlbnMgc3NoZCBleHBhbmRzKS4KcSgpIHsgcHJpbnRmICciJXMiJyAiJChwcmludGYgJyVzJyAiJDEiIHwgc2VkICdzLyUvJSUvZycpIjsgfQojIHNxIHF1b3RlcyBhIHZhbHVlIGZvciBzaC4Kc3EoKSB7IHByaW50ZiAiJyVzJyIgIiQocHJpbnRmICclcycgIiQxIiB8IHNlZCAicy8nLydcXFxcJycvZyIpIjsgfQoKIyBUaGUga2V5IGlzIHVzZWQgd2hlcmUgdGhlIHRhcmdldCBwdXQgaXQgKDA2MDApOiBubyBjb3B5IG9mIGEgc2VjcmV0LgoiJGtleWdlbiIgLXkgLWYgIiRrZXkiID4iJGRpci9pZC5wdWIiIHx8IGZhaWwgImNhbm5vdCByZWFkIHRoZSBqb2Iga2V5ICRrZXkiCnsKCWNhdCAiJGRpci9pZC5wdWIiCglpZiBbIC1uICIke0pPQlNISUZUX1NTSF9VU0VSS0VZUzotfSIgXTsgdGhlbgoJCXByaW50ZiAnJXNcbicgIiRKT0JTSElGVF9TU0hfVVNFUktFWVMiCglmaQp9ID4iJGRpci9hdXRob3JpemVkX2tleXMiCnJtIC1mICIkZGlyL2hvc3Rfa2V5IiAiJGRpci9ob3N0X2tleS5wdWIiCiIka2V5Z2VuIiAtcSAtdCBlZDI1NTE5IC1OICcnIC1mICIkZGlyL2hvc3Rfa2V5IiB8fCBmYWlsICJjYW5ub3QgbWFrZSBhIGhvc3Qga2V5IgoKIyBUaGUgY2xpZW50IGNvbmZpZzogb25lIEhvc3QgYmxvY2sgcGVyIHBlZXIsIHRoZW4gdGhlIGpvYi13aWRlIHNldHRpbmdzLgojIChBIGZ1bmN0aW9uLCBzbyBgc2V0IC0tYCBsZWF2ZXMgdGhlIGNvbW1hbmQncyBhcmd1bWVudHMgYWxvbmUuKQpob3N0X2Jsb2NrcygpIHsKCW9sZF9pZnM9JElGUwoJSUZTPSwKCWZvciBlbnRyeSBpbiAkaG9zdHM7IGRvCgkJSUZTPScgJwoJCSMgc2hlbGxjaGVjayBkaXNhYmxlPVNDMjA4NiAjIHRoZSBlbnRyeSBpcyBzcGxpdCBvbiBwdXJwb3NlCgkJc2V0IC0tICRlbnRyeQoJCUlGUz0sCgkJWyAkIyAtZ2UgMyBdIHx8IGZhaWwgImJhZCBob3N0IGVudHJ5ICckZW50cnknIgoJCWE9JDEgcD0kMgoJCXNoaWZ0IDIKCQlJRlM9JyAnICMgIiQqIiBqb2lucyB3aXRoIHRoZSBmaXJzdCBjaGFyYWN0ZXIgb2YgSUZTCgkJcHJpbnRmICdIb3N0ICVzXG5cdEhvc3ROYW1lICVzXG5cdFBvcnQgJXNcbicgIiQqIiAiJGEiICIkcCIgPj4iJGRpci9zc2hfY29uZmlnIgoJCUlGUz0sCgkJYWxpYXNlcz0iJGFsaWFzZXMgJDEiCgkJZm9yIG4gaW4gIiRAIjsgZG8KCQkJaWYgWyAiJG4iID0gIiRtZSIgXTsgdGhlbgoJCQkJYWRkcj0kYSBwb3J0PSRwCgkJCWZpCgkJZG9uZQoJZG9uZQoJSUZTPSRvbGRfaWZzCn0KYWRkcj0nJyBwb3J0PScnIGFsaWFzZXM9JycKOiA+IiRkaXIvc3NoX2NvbmZpZyIKaG9zdF9ibG9ja3MKWyAtbiAiJHBvcnQiIF0gfHwgZmFpbCAidGhpcyB0YXNrICgkbWUpIGlzIG5vdCBpbiBKT0JTSElGVF9TU0hfSE9TVFMiCmNhdCA+PiIkZGlyL3NzaF9jb25maWciIDw8RU9GCkhvc3QgKgoJVXNlciAkdXNlcgoJSWRlbnRpdHlGaWxlICQocSAiJGtleSIpCglJZGVudGl0aWVzT25seSB5ZXMKCVN0cmljdEhvc3RLZXlDaGVja2luZyBubwoJVXNlcktub3duSG9zdHNGaWxlIC9kZXYvbnVsbAoJR2xvYmFsS25vd25Ib3N0c0ZpbGUgL2Rldi9udWxsCglMb2dMZXZlbCBFUlJPUgoJQmF0Y2hNb2RlIHllcwoJQ29ubmVjdGlvbkF0dGVtcHRzIDEwCkVPRgpwcmludGYgJyMhL2Jpbi9zaFxuZXhlYyAlcyAtRiAlcyAiJEAiXG4nICIkKHNxICIkc3NoIikiICIkKHNxICIkZGlyL3NzaF9jb25maWciKSIgPiIkZGlyL2Jpbi9zc2giCmNobW9kIDcwMCAiJGRpci9iaW4vc3NoIgojIEEgdGFyZ2V0IHRoYXQgbGF1bmNoZXMgTVBJIHJhbmtzIGl0c2VsZiAoU2x1cm0ncyBtcGkgPSAicG1peCIpIG5hbWVzIGl0cwojIG1waXJ1biBpbiBKT0JTSElGVF9NUElSVU46IHRoZSB1c2VyJ3MgbXBpcnVuIGxpbmUgcnVucyBpdCB1bmNoYW5nZWQuCmlmIFsgLW4gIiR7Sk9CU0hJRlRfTVBJUlVOOi19IiBdOyB0aGVuCglmb3IgbSBpbiBtcGlydW4gbXBpZXhlYyBvcnRlcnVuOyBkbwoJCXByaW50ZiAnIyEvYmluL3NoXG5KT0JTSElGVF9NUElSVU5fU0tJUD0lcyBleGVjIHNoICVzICIkQCJcbicgIiQoc3EgIiRkaXIvYmluIikiICIkKHNxICIkSk9CU0hJRlRfTVBJUlVOIikiID4iJGRpci9iaW4vJG0iCgkJY2htb2QgNzAwICIkZGlyL2Jpbi8kbSIKCWRvbmUKZmkKUEFUSD0kZGlyL2JpbjokUEFUSApleHBvcnQgUEFUSAoKIyBUaGUgc3NoZDoga2V5IGxvZ2lucyBvbmx5LCBmb3IgdGhpcyB1c2VyLCB3aXRoIHRoZSB0YXNrJ3Mgc2VhcmNoIHBhdGhzCiMgKGFuIHNzaCBzZXNzaW9uIHN0YXJ0cyB3aXRoIGEgZnJlc2ggZW52aXJvbm1lbnQ7IE9wZW5QQUkgY29waWVkIGl0cwojIHZhcmlhYmxlcyB0byAvZXRjL2Vudmlyb25tZW50IGZvciB0aGUgc2FtZSByZWFzb24pLgp7CglwcmludGYgJ1BvcnQgJXNcbkxpc3RlbkFkZHJlc3MgJXNcbicgIiRwb3J0IiAiJGFkZHIiCglwcmludGYgJ0hvc3RLZXkgJXNcblBpZEZpbGUgJXNcbkF1dGhvcml6ZWRLZXlzRmlsZSAlc1xuJyAiJChxICIkZGlyL2hvc3Rfa2V5IikiICIkKHEgIiRkaXIvc3NoZC5waWQiKSIgIiQocSAiJGRpci9hdXRob3JpemVkX2tleXMiKSIKCXByaW50ZiAnU3RyaWN0TW9kZXMgbm9cblVzZVBBTSBub1xuUGFzc3dvcmRBdXRoZW50aWNhdGlvbiBub1xuS2JkSW50ZXJhY3RpdmVBdXRoZW50aWNhdGlvbiBub1xuJwoJcHJpbnRmICdQdWJrZXlBdXRoZW50aWNhdGlvbiB5ZXNcblBlcm1pdFJvb3RMb2dpbiBwcm9oaWJpdC1wYXNzd29yZFxuQWxsb3dVc2VycyAlc1xuJyAiJHVzZXIiCglwcmludGYgJ1ByaW50TW90ZCBub1xuWDExRm9yd2FyZGluZyBub1xuTWF4U3RhcnR1cHMgMTAwOjMwOjIwMFxuTWF4U2Vzc2lvbnMgMTAwXG4nCglmb3IgdiBpbiBQQVRIIExEX0xJQlJBUllfUEFUSCBQWVRIT05QQVRIIE9NUElfQUxMT1dfUlVOX0FTX1JPT1QgT01QSV9BTExPV19SVU5fQVNfUk9PVF9DT05GSVJNOyBkbwoJCWV2YWwgInZhbD1cJHskdi19IgoJCSMgc2hlbGxjaGVjayBkaXNhYmxlPVNDMjE1NCAjIHZhbCBpcyBzZXQgYnkgdGhlIGV2YWwKCQljYXNlICR2YWwgaW4KCQknJyB8IConIicqIHwgKiclJyopIDs7CgkJKikgcHJpbnRmICdTZXRFbnYgIiVzPSVzIlxuJyAiJHYiICIkdmFsIiA7OwoJCWVzYWMKCWRvbmUKfSA+IiRkaXIvc3NoZF9jb25maWciCmlmIFsgIiQoaWQgLXUpIiA9IDAgXTsgdGhlbgoJbWtkaXIgLXAgL3J1bi9zc2hkIDI+L2Rldi9udWxsICMgcHJpdmlsZWdlIHNlcGFyYXRpb24gZGlyZWN0b3J5CmZpCgojIEV2ZXJ5IE1QSUpvYiB0YXNrJ3MgZmlsZXMsIGFzIHRoZSBvcGVyYXRvcidzIENvbmZpZ01hcCBoZWxkIHRoZW0uCmlmIFsgLW4gIiR7Sk9CU0hJRlRfTVBJX0hPU1RGSUxFOi19IiBdOyB0aGVuCgltZGlyPSR7Sk9CU0hJRlRfTVBJX0RJUjo/fQoJbWtkaXIgLXAgIiRtZGlyIiB8fCBmYWlsICJjYW5ub3QgbWFrZSAkbWRpciIKCW1hcmtlcj0kKG1rdGVtcCAiJG1kaXIvLnRhc2suJG1lLlhYWFhYWCIpIHx8IGZhaWwgImNhbm5vdCB3cml0ZSBpbiAkbWRpciIKCSMgcHJpdmF0ZTogb25seSB0aGlzIHVzZXIncyB0YXNrcyByZWFkIGl0IChTbHVybSBtYWRlIGl0IDA3MDAgYWxyZWFkeSkKCWNobW9kIDcwMCAiJG1kaXIiIHx8IGZhaWwgImNhbm5vdCBwcm90ZWN0ICRtZGlyIgoJIyBzaGVsbGNoZWNrIGRpc2FibGU9U0MyMDE1ICMgZmFpbCBleGl0cwoJcHJpbnRmICclc1xuJyAiJEpPQlNISUZUX01QSV9IT1NURklMRSIgfCB0ciAnLCcgJ1xuJyA+IiRtZGlyL2hvc3RmaWxlLnRtcC4kJCIgJiYgbXYgLWYgIiRtZGlyL2hvc3RmaWxlLnRtcC4kJCIgIiRtZGlyL2hvc3RmaWxlIiB8fAoJCWZhaWwgImNhbm5vdCB3cml0ZSAkbWRpci9ob3N0ZmlsZSIKCSMga3ViZXhlYy5zaCB3YXMgYGt1YmVjdGwgZXhlYyA8cG9kPiAtLSAvYmluL3NoIC1jICIkKiJgOyBzc2ggcnVucyB0aGUKCSMgc2FtZSBjb21tYW5kIGxpbmUgb24gdGhlIHNhbWUgcG9kLiBUaGUgc2FtZSB0ZXh0IGluIGV2ZXJ5IHRhc2sgKHRhc2tzCgkjIG9uIG9uZSBob3N0IHNoYXJlIHRoZSBkaXJlY3RvcnkpOiB0aGUgc3NoIG9uIFBBVEggaXMgZWFjaCB0YXNrJ3Mgb3duLgoJIyBzaGVsbGNoZWNrIGRpc2FibGU9U0MyMDE1ICMgZmFpbCBleGl0cwoJcHJpbnRmICcjIS9iaW4vc2hcbmV4ZWMgc3NoICIkQCJcbicgPiIkbWRpci9rdWJleGVjLnNoLnRtcC4kJCIgJiYKCQljaG1vZCA3NTUgIiRtZGlyL2t1YmV4ZWMuc2gudG1wLiQkIiAmJiBtdiAtZiAiJG1kaXIva3ViZXhlYy5zaC50bXAuJCQiICIkbWRpci9rdWJleGVjLnNoIiB8fAoJCWZhaWwgImNhbm5vdCB3cml0ZSAkbWRpci9rdWJleGVjLnNoIgoJY2htb2QgNjQ0ICIkbWRpci9ob3N0ZmlsZSIKZmkKCiIkc3NoZCIgLXQgLWYgIiRkaXIvc3NoZF9jb25maWciIHx8IGZhaWwgInNzaGQgcmVqZWN0cyBpdHMgY29uZmlndXJhdGlvbiAkZGlyL3NzaGRfY29uZmlnIgppZiBbICIkaWRsZSIgPSAxIF07IHRoZW4KCWlmIFsgLXogIiRtYXJrZXIiIF07IHRoZW4KCQlleGVjICIkc3NoZCIgLUQgLWUgLWYgIiRkaXIvc3NoZF9jb25maWciCglmaQoJIyB0aGUgc3NoZCBpbiB0aGUgZm9yZWdyb3VuZCwgYnV0IHRoaXMgc2hlbGwgc3RheXMgdG8gcmVsZWFzZSB0aGUKCSMgTVBJIGRpcmVjdG9yeSB3aGVuIHRoZSB0YXJnZXQgc3RvcHMgdGhlIHRhc2sKCSMgdGhlIHRyYXAgaXMgc2V0IGJlZm9yZSB0aGUgZm9yayBhbmQgYSBzdG9wIHRoYXQgY2FtZSBiZWZvcmUgJHNwaWQKCSMgd2FzIGtub3duIGlzIHBhc3NlZCBvbiBhZnRlcjogbm8gc3RvcCBpcyBsb3N0IChub3Iga2lsbHMgdGhpcyBzaGVsbAoJIyBiZWZvcmUgaXQgcmVsZWFzZWQgdGhlIE1QSSBkaXJlY3RvcnkpCglzdG9wPTAgc3BpZD0KCXRyYXAgJ3N0b3A9MTsgWyAtbiAiJHNwaWQiIF0gJiYga2lsbCAiJHNwaWQiIDI+L2Rldi9udWxsJyBURVJNIElOVCBIVVAKCSIkc3NoZCIgLUQgLWUgLWYgIiRkaXIvc3NoZF9jb25maWciIDwvZGV2L251bGwgJgoJc3BpZD0kIQoJWyAiJHN0b3AiID0gMSBdICYmIGtpbGwgIiRzcGlkIiAyPi9kZXYvbnVsbAoJd2FpdCAiJHNwaWQiCglyYz0kPwoJa2lsbCAiJHNwaWQiIDI+L2Rldi9udWxsICYmIHdhaXQgIiRzcGlkIgoJbXBpX3JlbGVhc2UKCWV4aXQgIiRyYyIKZmkKIyBUaGUgc3NoZCBsaXZlcyBhcyBsb25nIGFzIHRoZSBjb21tYW5kOiBhIHdhdGNoZXIgc3RvcHMgaXQgb25jZSB0aGUKIyBwcm9jZXNzIHRoYXQgYmVjb21lcyB0aGUgY29tbWFuZCAodGhpcyBzaGVsbCdzIHBpZCkgaXMgZ29uZSwgd2hhdGV2ZXIKIyB0aGUgdGFyZ2V0J3Mgb3duIGNsZWFuLXVwIGRvZXMuCm1haW49JCQKKAoJIiRzc2hkIiAtRCAtZSAtZiAiJGRpci9zc2hkX2NvbmZpZyIgMj4+IiRkaXIvc3NoZC5sb2ciIDwvZGV2L251bGwgJgoJc3BpZD0kIQoJIyBhIHN0b3Agc2lnbmFsIHRvIHRoZSB0YXNrJ3MgcHJvY2VzcyBncm91cCBlbmRzIHRoZSBjb21tYW5kLCBub3QgdGhlCgkjIHdhdGNoZXI6IGl0IHN0aWxsIHN0b3BzIHRoZSBzc2hkIGFuZCByZWxlYXNlcyB0aGUgTVBJIGRpcmVjdG9yeQoJIyAoc2V0IGFmdGVyIHRoZSBzc2hkIHN0YXJ0ZWQ6IGFuIGlnbm9yZWQgc2lnbmFsIHN0YXlzIGlnbm9yZWQgaW4gaXQpCgl0cmFwICcnIFRFUk0gSU5UIEhVUAoJd2hpbGUga2lsbCAtMCAiJG1haW4iIDI+L2Rldi9udWxsICYmIGtpbGwgLTAgIiRzcGlkIiAyPi9kZXYvbnVsbDsgZG8KCQlzbGVlcCAxCglkb25lCglraWxsICIkc3BpZCIgMj4vZGV2L251bGwKCW1waV9yZWxlYXNlCikgPC9kZXYvbnVsbCA+L2Rldi9udWxsIDI+JjEgJgoKaWYgWyAtbiAiJHtKT0JTSElGVF9TU0hfQkFSUklFUjotfSIgXTsgdGhlbgoJZW5kPSQoKCQoZGF0ZSArJXMpICsgSk9CU0hJRlRfU1NIX0JBUlJJRVIpKQoJZm9yIGggaW4gJGFsaWFzZXM7IGRvCgkJdW50aWwgc3NoIC1vIENvbm5lY3RUaW1lb3V0PTIgLW8gQ29ubmVjdGlvbkF0dGVtcHRzPTEgIiRoIiB0cnVlIDwvZGV2L251bGwgMj4vZGV2L251bGw7IGRvCgkJCWlmIFsgIiQoZGF0ZSArJXMpIiAtZ2UgIiRlbmQiIF07IHRoZW4KCQkJCXByaW50ZiAnam9ic2hpZnQgc3NoIGVtdWxhdGlvbjogc3NoYmFycmllcjogJXMgZG9lcyBub3QgYW5zd2VyIGFmdGVyICVzc1xuJyAiJGgiICIkSk9CU0hJRlRfU1NIX0JBUlJJRVIiID4mMgoJCQkJbXBpX3JlbGVhc2UKCQkJCWV4aXQgMjQ5CgkJCWZpCgkJCXNsZWVwIDEKCQlkb25lCglkb25lCmZpCiMgVW5kZXIgU2x1cm0sIE9wZW5NUEkncyBhbmQgSHlkcmEncyBsYXVuY2hlcnMgd291bGQgc2VlIHRoZSBhbGxvY2F0aW9uCiMgYW5kIHN0YXJ0IHRoZWlyIGRhZW1vbnMgd2l0aCBzcnVuIG9uIFNsdXJtJ3Mgbm9kZXMgaW5zdGVhZCBvZiB0aGUgcGVlcnMKIyB0aGUgY29tbWFuZCBuYW1lczsgb24gdGhlIHNvdXJjZSBwbGF0Zm9ybSB0aGV5IHVzZWQgc3NoIGFuZCB0aGUKIyBob3N0ZmlsZS4gKEEgdXNlcidzIG93biBzZXR0aW5nIHdpbnMuKQppZiBbIC1uICIke1NMVVJNX0pPQl9JRDotfSIgXTsgdGhlbgoJT01QSV9NQ0FfcGxtPSR7T01QSV9NQ0FfcGxtOi1yc2h9CglPTVBJX01DQV9yYXM9JHtPTVBJX01DQV9yYXM6LV5zbHVybX0KCUlfTVBJX0hZRFJBX0JPT1RTVFJBUD0ke0lfTVBJX0hZRFJBX0JPT1RTVFJBUDotc3NofQoJSFlEUkFfTEFVTkNIRVI9JHtIWURSQV9MQVVOQ0hFUjotc3NofQoJZXhwb3J0IE9NUElfTUNBX3BsbSBPTVBJX01DQV9yYXMgSV9NUElfSFlEUkFfQk9PVFNUUkFQIEhZRFJBX0xBVU5DSEVSCmZpClsgJCMgLWd0IDAgXSB8fCB7IG1waV9yZWxlYXNlOyBleGl0IDA7IH0KWyAtbiAiJG1hcmtlciIgXSB8fCBleGVjICIkQCIKIyBBIHRhc2sgaG9sZGluZyB0aGUgTVBJIGRpcmVjdG9yeSBydW5zIGl0cyBjb21tYW5kIGFzIGEgY2hpbGQsIHNvIHRoYXQgaXQKIyBjYW4gcmVsZWFzZSB0aGUgZGlyZWN0b3J5IHdoZW4gdGhlIGNvbW1hbmQgZW5kczogYW4gZXhlYydkIGNvbW1hbmQncwojIGVuZCBpcyB0aGUgdGFzaydzLCBhbmQgdGhlIHRhcmdldCBraWxscyB3aGF0IGlzIGxlZnQgYXQgb25jZSAoTm9tYWQncwojIGV4ZWN1dG9yIGRvZXMpLiBTdG9wIHNpZ25hbHMgYXJlIHBhc3NlZCBvbjsgc3RkaW4gc3RheXMgdGhlIHRhc2sncy4KIyAoVGhlIHRyYXAgaXMgc2V0IGJlZm9yZSB0aGUgZm9yaywgYW5kIGEgc3RvcCB0aGF0IGNhbWUgYmVmb3JlICRjcGlkIHdhcwojIGtub3duIGlzIHBhc3NlZCBvbiBhZnRlciBpdC4pCnN0b3A9MCBjcGlkPQp0cmFwICdzdG9wPTE7IFsgLW4gIiRjcGlkIiBdICYmIGtpbGwgLVRFUk0gIiRjcGlkIiAyPi9kZXYvbnVsbCcgVEVSTSBJTlQgSFVQCmV4ZWMgMzwmMAoiJEAiIDwmMyAzPCYtICYKY3BpZD0kIQpleGVjIDM8Ji0KWyAiJHN0b3AiID0gMSBdICYmIGtpbGwgLVRFUk0gIiRjcGlkIiAyPi9kZXYvbnVsbAp3YWl0ICIkY3BpZCIKcmM9JD8Kd2hpbGUga2lsbCAtMCAiJGNwaWQiIDI+L2Rldi9udWxsOyBkbwoJd2FpdCAiJGNwaWQiCglyYz0kPwpkb25lCm1waV9yZWxlYXNlCmV4aXQgIiRyYyIK\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0755"
      }
      template {
        destination = "secrets/jobshift-ssh-key"
        data        = "{{ with nomadVar \"nomad/jobs/alice~allreduce\" }}{{ index . \"jobshift_ssh_key\" }}{{ end }}"
        change_mode = "noop"
        once        = true
        perms       = "0600"
      }
    }
    restart {
      attempts = 0
      mode     = "fail"
    }
    reschedule {
      attempts  = 0
      unlimited = false
    }
    network {
      port "ssh_0" {
      }
    }
    meta {
      jobshift_env    = "template over registrations"
      jobshift_judges = "none in the job (a controller or watch -enforce)"
      jobshift_role   = "launcher"
    }
    service {
      name     = "alice-allreduce-launcher-ssh-0"
      tags     = ["idx-$${NOMAD_ALLOC_INDEX}"]
      port     = "ssh_0"
      provider = "nomad"
    }
  }
  group "worker" {
    count = 2
    task "jobshift-barrier" {
      driver = "raw_exec"
      lifecycle {
        hook = "prestart"
      }
      config {
        args    = ["-c", "n=0\nwhile :; do\n  l=\n  IFS= read -r l < \"$NOMAD_TASK_DIR/barrier\" 2>/dev/null\n  [ \"$l\" = READY ] && exit 0\n  n=$((n+1))\n  if [ \"$n\" -gt 1200 ]; then\n    echo \"jobshift: barrier timeout: after 2m0s not every task of job alice~allreduce was placed and registered; still missing: $l. Check 'nomad job status alice~allreduce' for allocations that could not be placed (not enough CPU, memory or GPUs) or that ended early; the timeout is nomad.barrier_timeout in the site config.\" >&2\n    exit 1\n  fi\n  sleep 0.1\ndone\n"]
        command = "/bin/sh"
      }
      resources {
        cpu    = 20
        memory = 32
      }
      template {
        destination = "local/barrier"
        data        = <<EOT
{{- $job := env "NOMAD_JOB_ID" -}}
{{- $missing := "" -}}
{{- range $s := nomadService "alice-allreduce-launcher-ssh-0" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "0/" .) true }}{{ end }}{{ end }}{{ end -}}
{{- range $i := loop 1 }}{{ if not (scratch.Key (print "0/idx-" $i)) }}{{ $missing = printf "%s %s-%d" $missing "launcher" $i }}{{ end }}{{ end -}}
{{- range $s := nomadService "alice-allreduce-worker-ssh-0" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "1/" .) true }}{{ end }}{{ end }}{{ end -}}
{{- range $i := loop 2 }}{{ if not (scratch.Key (print "1/idx-" $i)) }}{{ $missing = printf "%s %s-%d" $missing "worker" $i }}{{ end }}{{ end -}}
{{ if eq $missing "" }}READY{{ else }}WAITING{{ $missing }}{{ end }}
EOT
        change_mode = "noop"
        wait {
          min = "0s"
          max = "0s"
        }
      }
    }
    task "main" {
      driver      = "raw_exec"
      kill_signal = "SIGTERM"
      config {
        args    = ["$${NOMAD_TASK_DIR}/jobshift-sshemu.sh", "--idle"]
        command = "sh"
      }
      env {
        CUDA_VISIBLE_DEVICES = ""
        JOBSHIFT_SSH_DIR     = "$${NOMAD_TASK_DIR}/ssh"
        JOBSHIFT_SSH_KEY     = "$${NOMAD_SECRETS_DIR}/jobshift-ssh-key"
      }
      resources {
      }
      template {
        destination = "local/jobshift.env"
        data        = <<EOT
{{- $h := "" -}}{{- $all := nomadService "alice-allreduce-launcher-ssh-0" -}}{{- range $i := loop 1 -}}{{- range $all -}}{{- if and (eq .JobID (env "NOMAD_JOB_ID")) (.Tags | contains (printf "idx-%d" $i)) -}}{{- if ne $h "" }}{{ $h = printf "%s," $h }}{{ end -}}{{- $h = printf "%s%s:%d" $h .Address .Port -}}{{- end -}}{{- end -}}{{- end }}
JS_HOSTS_LAUNCHER={{ $h }}
{{- $h := "" -}}{{- $all := nomadService "alice-allreduce-worker-ssh-0" -}}{{- range $i := loop 2 -}}{{- range $all -}}{{- if and (eq .JobID (env "NOMAD_JOB_ID")) (.Tags | contains (printf "idx-%d" $i)) -}}{{- if ne $h "" }}{{ $h = printf "%s," $h }}{{ end -}}{{- $h = printf "%s%s:%d" $h .Address .Port -}}{{- end -}}{{- end -}}{{- end }}
JS_HOSTS_WORKER={{ $h }}
JS_ROLE=worker
JS_INDEX={{ env "NOMAD_ALLOC_INDEX" }}
EOT
        change_mode = "noop"
        once        = true
        env         = true
      }
      template {
        destination = "local/jobshift-sshemu.sh"
        data        = "{{ base64Decode \"IyBqb2JzaGlmdCBzc2ggZW11bGF0aW9uOiB3aGF0IE9wZW5QQUkncyBzc2ggcnVudGltZSBwbHVnaW4gYW5kCiMgbXBpLW9wZXJhdG9yJ3MgcG9kcyBnYXZlIGV2ZXJ5IHRhc2ssIHJlYnVpbHQgd2l0aG91dCByb290IGFuZCB3aXRob3V0CiMgdG91Y2hpbmcgdGhlIHVzZXIncyB+Ly5zc2g6CiMgICAtIGFuIHNzaGQgb2YgdGhlIHRhc2sncyBvd24gb24gaXRzIGBzc2hgIHBvcnQsIGFjY2VwdGluZyB0aGUgam9iJ3Mga2V5CiMgICAgIChhbmQgdGhlIHVzZXJzc2ggcHVibGljIGtleXMpLCB3aXRoIGEgaG9zdCBrZXkgbWFkZSBoZXJlOwojICAgLSBhbiBzc2ggY2xpZW50IGNvbmZpZyB3aG9zZSBIb3N0IGVudHJpZXMgbWFwIGV2ZXJ5IHBlZXIncyBhbGlhcwojICAgICAoPHJvbGU+LTxpPiwgb3IgdGhlIE1QSUpvYiBwb2QgaG9zdCBuYW1lcykgdG8gaXRzIGFkZHJlc3MgYW5kIHBvcnQsCiMgICAgIHVzZWQgdGhyb3VnaCBhbiBgc3NoYCBlYXJseSBvbiBQQVRILCBzbyBgc3NoIHdvcmtlci0wYCwgbXBpcnVuIGFuZAojICAgICBob3Jvdm9kcnVuIHJlYWNoIHRoZSBwZWVycyB1bmNoYW5nZWQ7CiMgICAtIGZvciBhbiBNUElKb2IgdGFzaywgdGhlIGhvc3RmaWxlIChhbmQga3ViZXhlYy5zaCkgaW4gdGhlIG1waSBkaXI7CiMgICAtIHNzaGJhcnJpZXI6IHRoZSBjb21tYW5kIHN0YXJ0cyBvbmNlIGV2ZXJ5IHBlZXIncyBzc2hkIGFuc3dlcnMuCiMgVGhlbiBpdCBleGVjcyB0aGUgY29tbWFuZCAob3IsIHdpdGggLS1pZGxlLCBydW5zIHRoZSBzc2hkIGluIHRoZQojIGZvcmVncm91bmQ6IGFuIE1QSUpvYiB3b3JrZXIgd2hvc2Ugb3duIGNvbW1hbmQgd2FzIGFuIHNzaGQpLgojCiMgVXNhZ2U6IHNoIHNzaGVtdS5zaCBbLS1pZGxlXSBbLS1dIGNvbW1hbmQgW2FyZ3MuLi5dCiMgRW52aXJvbm1lbnQgKHNlZSBkcml2ZXJzL3NzaGVtdSBhbmQgdHJhbnNsYXRlL2NvbnRyYWN0L3NzaC5nbyk6CiMgICBKT0JTSElGVF9TU0hfSE9TVFMgICAiPGFkZHI+IDxwb3J0PiA8YWxpYXM+Li4uIiwgZW50cmllcyBqb2luZWQgYnkgJywnCiMgICBKT0JTSElGVF9TU0hfU0VMRiAgICB0aGlzIHRhc2sncyBmaXJzdCBhbGlhcwojICAgSk9CU0hJRlRfU1NIX0tFWSAgICAgdGhlIGpvYidzIHByaXZhdGUga2V5IGZpbGUgKGEgc2VjcmV0OyByZWFkIG9ubHkpCiMgICBKT0JTSElGVF9TU0hfRElSICAgICB3aGVyZSB0aGlzIHRhc2sncyBzc2hkIGFuZCBjbGllbnQgZmlsZXMgZ28KIyAgICAgICAgICAgICAgICAgICAgICAgICgiIiA9IGEgbmV3IGRpcmVjdG9yeSB1bmRlciAkVE1QRElSKQojICAgSk9CU0hJRlRfU1NIX1VTRVJLRVlTICBleHRyYSBhdXRob3JpemVkIHB1YmxpYyBrZXlzLCBvbmUgcGVyIGxpbmUKIyAgIEpPQlNISUZUX1NTSF9CQVJSSUVSIHNlY29uZHMgdG8gd2FpdCBmb3IgZXZlcnkgcGVlciAoIiIgPSBubyBiYXJyaWVyKQojICAgSk9CU0hJRlRfTVBJX0RJUiwgSk9CU0hJRlRfTVBJX0hPU1RGSUxFICBob3N0ZmlsZSBsaW5lcyBqb2luZWQgYnkgJywnCiMgICBKT0JTSElGVF9NUElSVU4gICAgICBhIHByb2dyYW0gcnVuIGFzIG1waXJ1bi9tcGlleGVjL29ydGVydW4gKCIiID0gbm9uZSkKIyBFeGl0IGNvZGVzOiAyNDkgYmFycmllciB0aW1lb3V0IChPcGVuUEFJJ3MgY29kZSksIDEgc2V0dXAgZmFpbHVyZS4KCnNldCAtdQp1bWFzayAwNzcKCmZhaWwoKSB7CglwcmludGYgJ2pvYnNoaWZ0IHNzaCBlbXVsYXRpb246ICVzXG4nICIkKiIgPiYyCgltcGlfcmVsZWFzZQoJZXhpdCAxCn0KCiMgVGhlIE1QSSBkaXJlY3RvcnkgbGl2ZXMgYXMgbG9uZyBhcyBhIHRhc2sgdGhhdCB1c2VzIGl0OiBlYWNoIHRhc2sgaG9sZHMKIyBhIG1hcmtlciBpbiBpdCwgYW5kIHRoZSBsYXN0IG9uZSB0byBlbmQgcmVtb3ZlcyB0aGUgZGlyZWN0b3J5IChzZXZlcmFsCiMgdGFza3Mgb2YgYSBqb2IgbWF5IHNoYXJlIGl0IG9uIG9uZSBob3N0LCBlLmcuIE5vbWFkJ3MgL3RtcCBwYXRoKS4KbWFya2VyPScnCm1waV9yZWxlYXNlKCkgewoJWyAtbiAiJG1hcmtlciIgXSB8fCByZXR1cm4gMAoJcm0gLWYgIiRtYXJrZXIiCgltYXJrZXI9JycKCWZvciBtIGluICIkbWRpciIvLnRhc2suKjsgZG8KCQlbIC1lICIkbSIgXSAmJiByZXR1cm4gMAoJZG9uZQoJcm0gLXJmICIkbWRpciIKfQoKaWRsZT0wCmlmIFsgIiR7MTotfSIgPSAtLWlkbGUgXTsgdGhlbgoJaWRsZT0xCglzaGlmdApmaQppZiBbICIkezE6LX0iID0gLS0gXTsgdGhlbgoJc2hpZnQKZmkKCmhvc3RzPSR7Sk9CU0hJRlRfU1NIX0hPU1RTOj99Cm1lPSR7Sk9CU0hJRlRfU1NIX1NFTEY6P30Ka2V5PSR7Sk9CU0hJRlRfU1NIX0tFWTo/fQpkaXI9JHtKT0JTSElGVF9TU0hfRElSOi19CmlmIFsgLXogIiRkaXIiIF07IHRoZW4KCWRpcj0kKG1rdGVtcCAtZCAiJHtUTVBESVI6LS90bXB9L2pvYnNoaWZ0LXNzaC5YWFhYWFgiKSB8fCBmYWlsICJjYW5ub3QgbWFrZSBhIGRpcmVjdG9yeSB1bmRlciAke1RNUERJUjotL3RtcH0iCmZpCm1rZGlyIC1wICIkZGlyL2JpbiIgfHwgZmFpbCAiY2Fubm90IG1ha2UgJGRpciIKY2htb2QgNzAwICIkZGlyIiB8fCBmYWlsICJjYW5ub3QgcHJvdGVjdCAkZGlyIgoKc3NoZD0ke0pPQlNISUZUX1NTSEQ6LX0KaWYgWyAteiAiJHNzaGQiIF07IHRoZW4KCXNzaGQ9JChjb21tYW5kIC12IHNzaGQpIHx8IHNzaGQ9L3Vzci9zYmluL3NzaGQKZmkKc3NoPSQoY29tbWFuZCAtdiBzc2gpIHx8IGZhaWwgInNzaCBub3QgZm91bmQgb24gUEFUSCAoaW5zdGFsbCBvcGVuc3NoLWNsaWVudCkiCmtleWdlbj0kKGNvbW1hbmQgLXYgc3NoLWtleWdlbikgfHwgZmFpbCAic3NoLWtleWdlbiBub3QgZm91bmQgb24gUEFUSCAoaW5zdGFsbCBvcGVuc3NoLWNsaWVudCkiClsgLXggIiRzc2hkIiBdIHx8IGZhaWwgInNzaGQgbm90IGZvdW5kIChpbnN0YWxsIG9wZW5zc2gtc2VydmVyLCBvciBzZXQgSk9CU0hJRlRfU1NIRCkiCnVzZXI9JChpZCAtdW4pIHx8IGZhaWwgImNhbm5vdCB0ZWxsIHRoZSB1c2VyIG5hbWUiCgojIHEgcXVvdGVzIGEgdmFsdWUgZm9yIHNzaF9jb25maWcgLyBzc2hkX2NvbmZpZyAoIi4uLiI7ICclJyBkb3VibGVkIGZvciB0aGUKIyB0b2tlbnMgc3NoZCBleHBhbmRzKS4KcSgpIHsgcHJpbnRmICciJXMiJyAiJChwcmludGYgJyVzJyAiJDEiIHwgc2VkICdzLyUvJSUvZycpIjsgfQojIHNxIHF1b3RlcyBhIHZhbHVlIGZvciBzaC4Kc3EoKSB7IHByaW50ZiAiJyVzJyIgIiQocHJpbnRmICclcycgIiQxIiB8IHNlZCAicy8nLydcXFxcJycvZyIpIjsgfQoKIyBUaGUga2V5IGlzIHVzZWQgd2hlcmUgdGhlIHRhcmdldCBwdXQgaXQgKDA2MDApOiBubyBjb3B5IG9mIGEgc2VjcmV0LgoiJGtleWdlbiIgLXkgLWYgIiRrZXkiID4iJGRpci9pZC5wdWIiIHx8IGZhaWwgImNhbm5vdCByZWFkIHRoZSBqb2Iga2V5ICRrZXkiCnsKCWNhdCAiJGRpci9pZC5wdWIiCglpZiBbIC1uICIke0pPQlNISUZUX1NTSF9VU0VSS0VZUzotfSIgXTsgdGhlbgoJCXByaW50ZiAnJXNcbicgIiRKT0JTSElGVF9TU0hfVVNFUktFWVMiCglmaQp9ID4iJGRpci9hdXRob3JpemVkX2tleXMiCnJtIC1mICIkZGlyL2hvc3Rfa2V5IiAiJGRpci9ob3N0X2tleS5wdWIiCiIka2V5Z2VuIiAtcSAtdCBlZDI1NTE5IC1OICcnIC1mICIkZGlyL2hvc3Rfa2V5IiB8fCBmYWlsICJjYW5ub3QgbWFrZSBhIGhvc3Qga2V5IgoKIyBUaGUgY2xpZW50IGNvbmZpZzogb25lIEhvc3QgYmxvY2sgcGVyIHBlZXIsIHRoZW4gdGhlIGpvYi13aWRlIHNldHRpbmdzLgojIChBIGZ1bmN0aW9uLCBzbyBgc2V0IC0tYCBsZWF2ZXMgdGhlIGNvbW1hbmQncyBhcmd1bWVudHMgYWxvbmUuKQpob3N0X2Jsb2NrcygpIHsKCW9sZF9pZnM9JElGUwoJSUZTPSwKCWZvciBlbnRyeSBpbiAkaG9zdHM7IGRvCgkJSUZTPScgJwoJCSMgc2hlbGxjaGVjayBkaXNhYmxlPVNDMjA4NiAjIHRoZSBlbnRyeSBpcyBzcGxpdCBvbiBwdXJwb3NlCgkJc2V0IC0tICRlbnRyeQoJCUlGUz0sCgkJWyAkIyAtZ2UgMyBdIHx8IGZhaWwgImJhZCBob3N0IGVudHJ5ICckZW50cnknIgoJCWE9JDEgcD0kMgoJCXNoaWZ0IDIKCQlJRlM9JyAnICMgIiQqIiBqb2lucyB3aXRoIHRoZSBmaXJzdCBjaGFyYWN0ZXIgb2YgSUZTCgkJcHJpbnRmICdIb3N0ICVzXG5cdEhvc3ROYW1lICVzXG5cdFBvcnQgJXNcbicgIiQqIiAiJGEiICIkcCIgPj4iJGRpci9zc2hfY29uZmlnIgoJCUlGUz0sCgkJYWxpYXNlcz0iJGFsaWFzZXMgJDEiCgkJZm9yIG4gaW4gIiRAIjsgZG8KCQkJaWYgWyAiJG4iID0gIiRtZSIgXTsgdGhlbgoJCQkJYWRkcj0kYSBwb3J0PSRwCgkJCWZpCgkJZG9uZQoJZG9uZQoJSUZTPSRvbGRfaWZzCn0KYWRkcj0nJyBwb3J0PScnIGFsaWFzZXM9JycKOiA+IiRkaXIvc3NoX2NvbmZpZyIKaG9zdF9ibG9ja3MKWyAtbiAiJHBvcnQiIF0gfHwgZmFpbCAidGhpcyB0YXNrICgkbWUpIGlzIG5vdCBpbiBKT0JTSElGVF9TU0hfSE9TVFMiCmNhdCA+PiIkZGlyL3NzaF9jb25maWciIDw8RU9GCkhvc3QgKgoJVXNlciAkdXNlcgoJSWRlbnRpdHlGaWxlICQocSAiJGtleSIpCglJZGVudGl0aWVzT25seSB5ZXMKCVN0cmljdEhvc3RLZXlDaGVja2luZyBubwoJVXNlcktub3duSG9zdHNGaWxlIC9kZXYvbnVsbAoJR2xvYmFsS25vd25Ib3N0c0ZpbGUgL2Rldi9udWxsCglMb2dMZXZlbCBFUlJPUgoJQmF0Y2hNb2RlIHllcwoJQ29ubmVjdGlvbkF0dGVtcHRzIDEwCkVPRgpwcmludGYgJyMhL2Jpbi9zaFxuZXhlYyAlcyAtRiAlcyAiJEAiXG4nICIkKHNxICIkc3NoIikiICIkKHNxICIkZGlyL3NzaF9jb25maWciKSIgPiIkZGlyL2Jpbi9zc2giCmNobW9kIDcwMCAiJGRpci9iaW4vc3NoIgojIEEgdGFyZ2V0IHRoYXQgbGF1bmNoZXMgTVBJIHJhbmtzIGl0c2VsZiAoU2x1cm0ncyBtcGkgPSAicG1peCIpIG5hbWVzIGl0cwojIG1waXJ1biBpbiBKT0JTSElGVF9NUElSVU46IHRoZSB1c2VyJ3MgbXBpcnVuIGxpbmUgcnVucyBpdCB1bmNoYW5nZWQuCmlmIFsgLW4gIiR7Sk9CU0hJRlRfTVBJUlVOOi19IiBdOyB0aGVuCglmb3IgbSBpbiBtcGlydW4gbXBpZXhlYyBvcnRlcnVuOyBkbwoJCXByaW50ZiAnIyEvYmluL3NoXG5KT0JTSElGVF9NUElSVU5fU0tJUD0lcyBleGVjIHNoICVzICIkQCJcbicgIiQoc3EgIiRkaXIvYmluIikiICIkKHNxICIkSk9CU0hJRlRfTVBJUlVOIikiID4iJGRpci9iaW4vJG0iCgkJY2htb2QgNzAwICIkZGlyL2Jpbi8kbSIKCWRvbmUKZmkKUEFUSD0kZGlyL2JpbjokUEFUSApleHBvcnQgUEFUSAoKIyBUaGUgc3NoZDoga2V5IGxvZ2lucyBvbmx5LCBmb3IgdGhpcyB1c2VyLCB3aXRoIHRoZSB0YXNrJ3Mgc2VhcmNoIHBhdGhzCiMgKGFuIHNzaCBzZXNzaW9uIHN0YXJ0cyB3aXRoIGEgZnJlc2ggZW52aXJvbm1lbnQ7IE9wZW5QQUkgY29waWVkIGl0cwojIHZhcmlhYmxlcyB0byAvZXRjL2Vudmlyb25tZW50IGZvciB0aGUgc2FtZSByZWFzb24pLgp7CglwcmludGYgJ1BvcnQgJXNcbkxpc3RlbkFkZHJlc3MgJXNcbicgIiRwb3J0IiAiJGFkZHIiCglwcmludGYgJ0hvc3RLZXkgJXNcblBpZEZpbGUgJXNcbkF1dGhvcml6ZWRLZXlzRmlsZSAlc1xuJyAiJChxICIkZGlyL2hvc3Rfa2V5IikiICIkKHEgIiRkaXIvc3NoZC5waWQiKSIgIiQocSAiJGRpci9hdXRob3JpemVkX2tleXMiKSIKCXByaW50ZiAnU3RyaWN0TW9kZXMgbm9cblVzZVBBTSBub1xuUGFzc3dvcmRBdXRoZW50aWNhdGlvbiBub1xuS2JkSW50ZXJhY3RpdmVBdXRoZW50aWNhdGlvbiBub1xuJwoJcHJpbnRmICdQdWJrZXlBdXRoZW50aWNhdGlvbiB5ZXNcblBlcm1pdFJvb3RMb2dpbiBwcm9oaWJpdC1wYXNzd29yZFxuQWxsb3dVc2VycyAlc1xuJyAiJHVzZXIiCglwcmludGYgJ1ByaW50TW90ZCBub1xuWDExRm9yd2FyZGluZyBub1xuTWF4U3RhcnR1cHMgMTAwOjMwOjIwMFxuTWF4U2Vzc2lvbnMgMTAwXG4nCglmb3IgdiBpbiBQQVRIIExEX0xJQlJBUllfUEFUSCBQWVRIT05QQVRIIE9NUElfQUxMT1dfUlVOX0FTX1JPT1QgT01QSV9BTExPV19SVU5fQVNfUk9PVF9DT05GSVJNOyBkbwoJCWV2YWwgInZhbD1cJHskdi19IgoJCSMgc2hlbGxjaGVjayBkaXNhYmxlPVNDMjE1NCAjIHZhbCBpcyBzZXQgYnkgdGhlIGV2YWwKCQljYXNlICR2YWwgaW4KCQknJyB8IConIicqIHwgKiclJyopIDs7CgkJKikgcHJpbnRmICdTZXRFbnYgIiVzPSVzIlxuJyAiJHYiICIkdmFsIiA7OwoJCWVzYWMKCWRvbmUKfSA+IiRkaXIvc3NoZF9jb25maWciCmlmIFsgIiQoaWQgLXUpIiA9IDAgXTsgdGhlbgoJbWtkaXIgLXAgL3J1bi9zc2hkIDI+L2Rldi9udWxsICMgcHJpdmlsZWdlIHNlcGFyYXRpb24gZGlyZWN0b3J5CmZpCgojIEV2ZXJ5IE1QSUpvYiB0YXNrJ3MgZmlsZXMsIGFzIHRoZSBvcGVyYXRvcidzIENvbmZpZ01hcCBoZWxkIHRoZW0uCmlmIFsgLW4gIiR7Sk9CU0hJRlRfTVBJX0hPU1RGSUxFOi19IiBdOyB0aGVuCgltZGlyPSR7Sk9CU0hJRlRfTVBJX0RJUjo/fQoJbWtkaXIgLXAgIiRtZGlyIiB8fCBmYWlsICJjYW5ub3QgbWFrZSAkbWRpciIKCW1hcmtlcj0kKG1rdGVtcCAiJG1kaXIvLnRhc2suJG1lLlhYWFhYWCIpIHx8IGZhaWwgImNhbm5vdCB3cml0ZSBpbiAkbWRpciIKCSMgcHJpdmF0ZTogb25seSB0aGlzIHVzZXIncyB0YXNrcyByZWFkIGl0IChTbHVybSBtYWRlIGl0IDA3MDAgYWxyZWFkeSkKCWNobW9kIDcwMCAiJG1kaXIiIHx8IGZhaWwgImNhbm5vdCBwcm90ZWN0ICRtZGlyIgoJIyBzaGVsbGNoZWNrIGRpc2FibGU9U0MyMDE1ICMgZmFpbCBleGl0cwoJcHJpbnRmICclc1xuJyAiJEpPQlNISUZUX01QSV9IT1NURklMRSIgfCB0ciAnLCcgJ1xuJyA+IiRtZGlyL2hvc3RmaWxlLnRtcC4kJCIgJiYgbXYgLWYgIiRtZGlyL2hvc3RmaWxlLnRtcC4kJCIgIiRtZGlyL2hvc3RmaWxlIiB8fAoJCWZhaWwgImNhbm5vdCB3cml0ZSAkbWRpci9ob3N0ZmlsZSIKCSMga3ViZXhlYy5zaCB3YXMgYGt1YmVjdGwgZXhlYyA8cG9kPiAtLSAvYmluL3NoIC1jICIkKiJgOyBzc2ggcnVucyB0aGUKCSMgc2FtZSBjb21tYW5kIGxpbmUgb24gdGhlIHNhbWUgcG9kLiBUaGUgc2FtZSB0ZXh0IGluIGV2ZXJ5IHRhc2sgKHRhc2tzCgkjIG9uIG9uZSBob3N0IHNoYXJlIHRoZSBkaXJlY3RvcnkpOiB0aGUgc3NoIG9uIFBBVEggaXMgZWFjaCB0YXNrJ3Mgb3duLgoJIyBzaGVsbGNoZWNrIGRpc2FibGU9U0MyMDE1ICMgZmFpbCBleGl0cwoJcHJpbnRmICcjIS9iaW4vc2hcbmV4ZWMgc3NoICIkQCJcbicgPiIkbWRpci9rdWJleGVjLnNoLnRtcC4kJCIgJiYKCQljaG1vZCA3NTUgIiRtZGlyL2t1YmV4ZWMuc2gudG1wLiQkIiAmJiBtdiAtZiAiJG1kaXIva3ViZXhlYy5zaC50bXAuJCQiICIkbWRpci9rdWJleGVjLnNoIiB8fAoJCWZhaWwgImNhbm5vdCB3cml0ZSAkbWRpci9rdWJleGVjLnNoIgoJY2htb2QgNjQ0ICIkbWRpci9ob3N0ZmlsZSIKZmkKCiIkc3NoZCIgLXQgLWYgIiRkaXIvc3NoZF9jb25maWciIHx8IGZhaWwgInNzaGQgcmVqZWN0cyBpdHMgY29uZmlndXJhdGlvbiAkZGlyL3NzaGRfY29uZmlnIgppZiBbICIkaWRsZSIgPSAxIF07IHRoZW4KCWlmIFsgLXogIiRtYXJrZXIiIF07IHRoZW4KCQlleGVjICIkc3NoZCIgLUQgLWUgLWYgIiRkaXIvc3NoZF9jb25maWciCglmaQoJIyB0aGUgc3NoZCBpbiB0aGUgZm9yZWdyb3VuZCwgYnV0IHRoaXMgc2hlbGwgc3RheXMgdG8gcmVsZWFzZSB0aGUKCSMgTVBJIGRpcmVjdG9yeSB3aGVuIHRoZSB0YXJnZXQgc3RvcHMgdGhlIHRhc2sKCSMgdGhlIHRyYXAgaXMgc2V0IGJlZm9yZSB0aGUgZm9yayBhbmQgYSBzdG9wIHRoYXQgY2FtZSBiZWZvcmUgJHNwaWQKCSMgd2FzIGtub3duIGlzIHBhc3NlZCBvbiBhZnRlcjogbm8gc3RvcCBpcyBsb3N0IChub3Iga2lsbHMgdGhpcyBzaGVsbAoJIyBiZWZvcmUgaXQgcmVsZWFzZWQgdGhlIE1QSSBkaXJlY3RvcnkpCglzdG9wPTAgc3BpZD0KCXRyYXAgJ3N0b3A9MTsgWyAtbiAiJHNwaWQiIF0gJiYga2lsbCAiJHNwaWQiIDI+L2Rldi9udWxsJyBURVJNIElOVCBIVVAKCSIkc3NoZCIgLUQgLWUgLWYgIiRkaXIvc3NoZF9jb25maWciIDwvZGV2L251bGwgJgoJc3BpZD0kIQoJWyAiJHN0b3AiID0gMSBdICYmIGtpbGwgIiRzcGlkIiAyPi9kZXYvbnVsbAoJd2FpdCAiJHNwaWQiCglyYz0kPwoJa2lsbCAiJHNwaWQiIDI+L2Rldi9udWxsICYmIHdhaXQgIiRzcGlkIgoJbXBpX3JlbGVhc2UKCWV4aXQgIiRyYyIKZmkKIyBUaGUgc3NoZCBsaXZlcyBhcyBsb25nIGFzIHRoZSBjb21tYW5kOiBhIHdhdGNoZXIgc3RvcHMgaXQgb25jZSB0aGUKIyBwcm9jZXNzIHRoYXQgYmVjb21lcyB0aGUgY29tbWFuZCAodGhpcyBzaGVsbCdzIHBpZCkgaXMgZ29uZSwgd2hhdGV2ZXIKIyB0aGUgdGFyZ2V0J3Mgb3duIGNsZWFuLXVwIGRvZXMuCm1haW49JCQKKAoJIiRzc2hkIiAtRCAtZSAtZiAiJGRpci9zc2hkX2NvbmZpZyIgMj4+IiRkaXIvc3NoZC5sb2ciIDwvZGV2L251bGwgJgoJc3BpZD0kIQoJIyBhIHN0b3Agc2lnbmFsIHRvIHRoZSB0YXNrJ3MgcHJvY2VzcyBncm91cCBlbmRzIHRoZSBjb21tYW5kLCBub3QgdGhlCgkjIHdhdGNoZXI6IGl0IHN0aWxsIHN0b3BzIHRoZSBzc2hkIGFuZCByZWxlYXNlcyB0aGUgTVBJIGRpcmVjdG9yeQoJIyAoc2V0IGFmdGVyIHRoZSBzc2hkIHN0YXJ0ZWQ6IGFuIGlnbm9yZWQgc2lnbmFsIHN0YXlzIGlnbm9yZWQgaW4gaXQpCgl0cmFwICcnIFRFUk0gSU5UIEhVUAoJd2hpbGUga2lsbCAtMCAiJG1haW4iIDI+L2Rldi9udWxsICYmIGtpbGwgLTAgIiRzcGlkIiAyPi9kZXYvbnVsbDsgZG8KCQlzbGVlcCAxCglkb25lCglraWxsICIkc3BpZCIgMj4vZGV2L251bGwKCW1waV9yZWxlYXNlCikgPC9kZXYvbnVsbCA+L2Rldi9udWxsIDI+JjEgJgoKaWYgWyAtbiAiJHtKT0JTSElGVF9TU0hfQkFSUklFUjotfSIgXTsgdGhlbgoJZW5kPSQoKCQoZGF0ZSArJXMpICsgSk9CU0hJRlRfU1NIX0JBUlJJRVIpKQoJZm9yIGggaW4gJGFsaWFzZXM7IGRvCgkJdW50aWwgc3NoIC1vIENvbm5lY3RUaW1lb3V0PTIgLW8gQ29ubmVjdGlvbkF0dGVtcHRzPTEgIiRoIiB0cnVlIDwvZGV2L251bGwgMj4vZGV2L251bGw7IGRvCgkJCWlmIFsgIiQoZGF0ZSArJXMpIiAtZ2UgIiRlbmQiIF07IHRoZW4KCQkJCXByaW50ZiAnam9ic2hpZnQgc3NoIGVtdWxhdGlvbjogc3NoYmFycmllcjogJXMgZG9lcyBub3QgYW5zd2VyIGFmdGVyICVzc1xuJyAiJGgiICIkSk9CU0hJRlRfU1NIX0JBUlJJRVIiID4mMgoJCQkJbXBpX3JlbGVhc2UKCQkJCWV4aXQgMjQ5CgkJCWZpCgkJCXNsZWVwIDEKCQlkb25lCglkb25lCmZpCiMgVW5kZXIgU2x1cm0sIE9wZW5NUEkncyBhbmQgSHlkcmEncyBsYXVuY2hlcnMgd291bGQgc2VlIHRoZSBhbGxvY2F0aW9uCiMgYW5kIHN0YXJ0IHRoZWlyIGRhZW1vbnMgd2l0aCBzcnVuIG9uIFNsdXJtJ3Mgbm9kZXMgaW5zdGVhZCBvZiB0aGUgcGVlcnMKIyB0aGUgY29tbWFuZCBuYW1lczsgb24gdGhlIHNvdXJjZSBwbGF0Zm9ybSB0aGV5IHVzZWQgc3NoIGFuZCB0aGUKIyBob3N0ZmlsZS4gKEEgdXNlcidzIG93biBzZXR0aW5nIHdpbnMuKQppZiBbIC1uICIke1NMVVJNX0pPQl9JRDotfSIgXTsgdGhlbgoJT01QSV9NQ0FfcGxtPSR7T01QSV9NQ0FfcGxtOi1yc2h9CglPTVBJX01DQV9yYXM9JHtPTVBJX01DQV9yYXM6LV5zbHVybX0KCUlfTVBJX0hZRFJBX0JPT1RTVFJBUD0ke0lfTVBJX0hZRFJBX0JPT1RTVFJBUDotc3NofQoJSFlEUkFfTEFVTkNIRVI9JHtIWURSQV9MQVVOQ0hFUjotc3NofQoJZXhwb3J0IE9NUElfTUNBX3BsbSBPTVBJX01DQV9yYXMgSV9NUElfSFlEUkFfQk9PVFNUUkFQIEhZRFJBX0xBVU5DSEVSCmZpClsgJCMgLWd0IDAgXSB8fCB7IG1waV9yZWxlYXNlOyBleGl0IDA7IH0KWyAtbiAiJG1hcmtlciIgXSB8fCBleGVjICIkQCIKIyBBIHRhc2sgaG9sZGluZyB0aGUgTVBJIGRpcmVjdG9yeSBydW5zIGl0cyBjb21tYW5kIGFzIGEgY2hpbGQsIHNvIHRoYXQgaXQKIyBjYW4gcmVsZWFzZSB0aGUgZGlyZWN0b3J5IHdoZW4gdGhlIGNvbW1hbmQgZW5kczogYW4gZXhlYydkIGNvbW1hbmQncwojIGVuZCBpcyB0aGUgdGFzaydzLCBhbmQgdGhlIHRhcmdldCBraWxscyB3aGF0IGlzIGxlZnQgYXQgb25jZSAoTm9tYWQncwojIGV4ZWN1dG9yIGRvZXMpLiBTdG9wIHNpZ25hbHMgYXJlIHBhc3NlZCBvbjsgc3RkaW4gc3RheXMgdGhlIHRhc2sncy4KIyAoVGhlIHRyYXAgaXMgc2V0IGJlZm9yZSB0aGUgZm9yaywgYW5kIGEgc3RvcCB0aGF0IGNhbWUgYmVmb3JlICRjcGlkIHdhcwojIGtub3duIGlzIHBhc3NlZCBvbiBhZnRlciBpdC4pCnN0b3A9MCBjcGlkPQp0cmFwICdzdG9wPTE7IFsgLW4gIiRjcGlkIiBdICYmIGtpbGwgLVRFUk0gIiRjcGlkIiAyPi9kZXYvbnVsbCcgVEVSTSBJTlQgSFVQCmV4ZWMgMzwmMAoiJEAiIDwmMyAzPCYtICYKY3BpZD0kIQpleGVjIDM8Ji0KWyAiJHN0b3AiID0gMSBdICYmIGtpbGwgLVRFUk0gIiRjcGlkIiAyPi9kZXYvbnVsbAp3YWl0ICIkY3BpZCIKcmM9JD8Kd2hpbGUga2lsbCAtMCAiJGNwaWQiIDI+L2Rldi9udWxsOyBkbwoJd2FpdCAiJGNwaWQiCglyYz0kPwpkb25lCm1waV9yZWxlYXNlCmV4aXQgIiRyYyIK\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0755"
      }
      template {
        destination = "secrets/jobshift-ssh-key"
        data        = "{{ with nomadVar \"nomad/jobs/alice~allreduce\" }}{{ index . \"jobshift_ssh_key\" }}{{ end }}"
        change_mode = "noop"
        once        = true
        perms       = "0600"
      }
    }
    restart {
      attempts = 0
      mode     = "fail"
    }
    reschedule {
      attempts  = 0
      unlimited = false
    }
    network {
      port "ssh_0" {
      }
    }
    meta {
      jobshift_env    = "template over registrations"
      jobshift_judges = "none in the job (a controller or watch -enforce)"
      jobshift_role   = "worker"
    }
    service {
      name     = "alice-allreduce-worker-ssh-0"
      tags     = ["idx-$${NOMAD_ALLOC_INDEX}"]
      port     = "ssh_0"
      provider = "nomad"
    }
  }
  meta {
    jobshift_attempt = "0"
    jobshift_format  = "mpijob"
    jobshift_name    = "allreduce"
    jobshift_policy  = "{\"name\":\"allreduce\",\"kind\":\"mpi\",\"format\":\"mpijob\",\"version\":\"kubeflow.org/v1alpha2\",\"completion\":{\"kind\":\"mpi\",\"pos\":{}},\"retry\":{\"jobRetryCount\":0,\"gangAllocation\":false,\"backoffLimit\":6,\"cleanPodPolicy\":\"None\",\"pos\":{}},\"roles\":[{\"name\":\"launcher\",\"replicaType\":\"launcher\",\"instances\":1,\"minFailed\":null,\"minSucceeded\":null,\"restartPolicy\":\"OnFailure\"},{\"name\":\"worker\",\"replicaType\":\"worker\",\"instances\":2,\"minFailed\":null,\"minSucceeded\":null,\"restartPolicy\":\"Always\"}]}"
    jobshift_shape   = "unwatched: for nomad job run; jobshift convert -watched writes what jobshift run submits"
    jobshift_source  = "mpi_v1alpha2.yaml"
    jobshift_user    = "alice"
    jobshift_version = "0.1.0-dev"
  }
}
