# jobshift: unwatched: for nomad job run; jobshift convert -watched writes what jobshift run submits
#
# shape: unwatched (nothing outside the job: nomad job run, run -detach); rendezvous barrier
# group launcher (raw_exec): env template over registrations; judged by poststop finisher
#   task jobshift-barrier (prestart)
#   task sshkey (prestart)
#   task main > ssh > restart loop > command
#   task finish (poststop)
# group worker (raw_exec): env template over registrations; judged by poststop finisher
#   task jobshift-barrier (prestart)
#   task sshkey (prestart)
#   task main > ssh > command
#   task finish (poststop)
# why: rendezvous barrier: nobody watches the job to write a snapshot (convert -watched, or run, gives the snapshot)
# why (launcher): env: template over the group services (no snapshot)
# why (launcher): poststop finisher, not in the task: no watcher sees a task that dies before its wrapper ends
# why (launcher): sshkey task: the ssh emulation's key is made in the job, for a run without jobshift
# why (worker): env: template over the group services (no snapshot)
# why (worker): poststop finisher, not in the task: no watcher sees a task that dies before its wrapper ends
# why (worker): sshkey task: the ssh emulation's key is made in the job, for a run without jobshift

job "alice~pi" {
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
        args    = ["-c", "n=0\nwhile :; do\n  l=\n  IFS= read -r l < \"$NOMAD_TASK_DIR/barrier\" 2>/dev/null\n  [ \"$l\" = READY ] && exit 0\n  n=$((n+1))\n  if [ \"$n\" -gt 1200 ]; then\n    echo \"jobshift: barrier timeout: after 2m0s not every task of job alice~pi was placed and registered; still missing: $l. Check 'nomad job status alice~pi' for allocations that could not be placed (not enough CPU, memory or GPUs) or that ended early; the timeout is nomad.barrier_timeout in the site config.\" >&2\n    exit 1\n  fi\n  sleep 0.1\ndone\n"]
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
{{- range $s := nomadService "alice-pi-launcher-ssh-0" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "0/" .) true }}{{ end }}{{ end }}{{ end -}}
{{- range $i := loop 1 }}{{ if not (scratch.Key (print "0/idx-" $i)) }}{{ $missing = printf "%s %s-%d" $missing "launcher" $i }}{{ end }}{{ end -}}
{{- range $s := nomadService "alice-pi-worker-ssh-0" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "1/" .) true }}{{ end }}{{ end }}{{ end -}}
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
    task "sshkey" {
      driver = "raw_exec"
      lifecycle {
        hook = "prestart"
      }
      config {
        args    = ["nomad-sshkey"]
        command = "/usr/local/bin/jobshift"
      }
      resources {
        cpu    = 20
        memory = 32
      }
      identity {
        name = "default"
        env  = true
      }
    }
    task "main" {
      driver      = "raw_exec"
      kill_signal = "SIGTERM"
      config {
        args    = ["$${NOMAD_SECRETS_DIR}/jobshift-sshemu.sh", "--", "/bin/sh", "-c", "_t_kind=none\n_t_gang=0\n_t_bl=3\n_t_classes=uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuttpuuppuuuupuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu\n_t_bo_init=10000 _t_bo_max=300000\n_t_tretry_0=0\n_t_tretry_1=0\n_t_role=0\n_s_frac=\n_s_pid=\njs_counter_add() {\n\t_l_n=0\n\tuntil mkdir \"$1.lock\" 2>/dev/null; do\n\t\tsleep 0.05\n\t\t_l_n=$((_l_n + 1))\n\t\t[ \"$_l_n\" -gt 200 ] && rmdir \"$1.lock\" 2>/dev/null\n\tdone\n\t_l_v=$(cat \"$1\" 2>/dev/null || echo 0)\n\techo $((_l_v + 1)) >\"$1\"\n\trmdir \"$1.lock\"\n}\njs_nth_is() {\n\t_q_p=\n\t_q_k=1\n\twhile [ \"$_q_k\" -lt \"$2\" ]; do\n\t\t_q_p=\"$_q_p?\"\n\t\t_q_k=$((_q_k + 1))\n\tdone\n\tcase $1 in\n\t$_q_p\"$3\"*) return 0 ;;\n\tesac\n\treturn 1\n}\njs_restart() {\n\tcase $_t_kind in\n\tpai)\n\t\t[ \"$_t_gang\" = 1 ] && return 1\n\t\t[ \"$2\" = 0 ] && return 1\n\t\tif [ \"$2\" -ge 0 ] && [ \"$2\" -le 255 ]; then\n\t\t\tjs_nth_is \"$_t_classes\" $(($2 + 1)) t && return 0\n\t\t\tjs_nth_is \"$_t_classes\" $(($2 + 1)) p && return 1\n\t\tfi\n\t\teval \"_r_max=\\$_t_tretry_$1\"\n\t\t_r_f=$3/restarts.$1.$4\n\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\tif [ \"$_r_max\" = -1 ] || [ \"$_r_so\" -lt \"$_r_max\" ]; then\n\t\t\tjs_counter_add \"$_r_f\"\n\t\t\treturn 0\n\t\tfi\n\t\treturn 1\n\t\t;;\n\ttf | pytorch)\n\t\t[ \"$2\" -ge 0 ] && [ \"$2\" -le 255 ] || return 1\n\t\teval \"_r_rs=\\$_t_rs_$1\"\n\t\tjs_nth_is \"$_r_rs\" $(($2 + 1)) 1 || return 1\n\t\t_r_f=$3/restarts.job\n\t\tif [ \"$_t_bl\" -ge 0 ]; then\n\t\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\t\t[ $((_r_so + 1)) -ge \"$_t_bl\" ] && return 1\n\t\tfi\n\t\tjs_counter_add \"$_r_f\"\n\t\treturn 0\n\t\t;;\n\tesac\n\treturn 1\n}\njs_backoff() {\n\tif [ \"$1\" -le 0 ] || [ \"$2\" -gt $((2 * _t_bo_max)) ]; then\n\t\t_b_wait=0\n\t\t_b_streak=1\n\t\treturn\n\tfi\n\t_b_wait=$_t_bo_init\n\t_b_n=1\n\twhile [ \"$_b_n\" -lt \"$1\" ] && [ \"$_b_wait\" -lt \"$_t_bo_max\" ]; do\n\t\t_b_wait=$((_b_wait * 2))\n\t\t_b_n=$((_b_n + 1))\n\tdone\n\t[ \"$_b_wait\" -gt \"$_t_bo_max\" ] && _b_wait=$_t_bo_max\n\t_b_streak=$(($1 + 1))\n}\njs_now_ms() {\n\t_n_ns=$(date +%s%N)\n\tcase $_n_ns in\n\t'' | *[!0-9]*) echo $(($(date +%s) * 1000)) ;;\n\t*) echo $((_n_ns / 1000000)) ;;\n\tesac\n}\njs_sleep_ms() {\n\t[ \"$_k_stop\" = 1 ] && return 0\n\tif [ -z \"$_s_frac\" ]; then\n\t\t_s_frac=0\n\t\tsleep 0.001 2>/dev/null && _s_frac=1\n\tfi\n\tif [ \"$_s_frac\" = 1 ]; then\n\t\tsleep \"$(($1 / 1000)).$(printf '%03d' $(($1 % 1000)))\" &\n\telse\n\t\tsleep $((($1 + 999) / 1000)) &\n\tfi\n\t_s_pid=$!\n\t[ \"$_k_stop\" = 1 ] && kill -KILL \"$_s_pid\" 2>/dev/null\n\twait \"$_s_pid\"\n\tkill -KILL \"$_s_pid\" 2>/dev/null\n\twait \"$_s_pid\" 2>/dev/null\n\t_s_pid=\n\treturn 0\n}\n_k_stop=0\n_k_child=\n_k_setsid=\ncommand -v setsid >/dev/null 2>&1 && _k_setsid=setsid\ntrap '_k_stop=1; [ -n \"$_k_child\" ] && { kill -TERM \"-$_k_child\" 2>/dev/null || kill -TERM \"$_k_child\" 2>/dev/null; }; [ -n \"$_s_pid\" ] && kill -KILL \"$_s_pid\" 2>/dev/null' TERM INT\n_k_dir=$NOMAD_TASK_DIR\n[ -n \"$_k_dir\" ] || _k_dir=.\n_k_i=$NOMAD_ALLOC_INDEX\n[ -n \"$_k_i\" ] || _k_i=0\n_k_streak=0\n_k_rc=0\nwhile :; do\n\t_k_t0=$(js_now_ms)\n\t$_k_setsid \"$@\" &\n\t_k_child=$!\n\t[ \"$_k_stop\" = 1 ] && { kill -TERM \"-$_k_child\" 2>/dev/null || kill -TERM \"$_k_child\" 2>/dev/null; }\n\twait \"$_k_child\"\n\t_k_rc=$?\n\twhile kill -0 \"$_k_child\" 2>/dev/null; do\n\t\twait \"$_k_child\"\n\t\t_k_rc=$?\n\tdone\n\tif [ \"$_k_stop\" = 1 ]; then\n\t\twhile kill -0 \"-$_k_child\" 2>/dev/null; do sleep 0.1; done\n\tfi\n\t_k_child=\n\t_k_t1=$(js_now_ms)\n\techo \"$_k_t0 $_k_t1 $_k_rc\" >>\"$_k_dir/jobshift-runs\"\n\t[ \"$_k_stop\" = 1 ] && break\n\tjs_restart \"$_t_role\" \"$_k_rc\" \"$_k_dir\" \"$_k_i\" || break\n\tjs_backoff \"$_k_streak\" $((_k_t1 - _k_t0))\n\t_k_streak=$_b_streak\n\tprintf 'jobshift: task exited with %s; restarting it in place after %s ms (kubelet CrashLoopBackOff)\\n' \"$_k_rc\" \"$_b_wait\" >&2\n\tif [ \"$_b_wait\" -gt 0 ]; then\n\t\tjs_sleep_ms \"$_b_wait\"\n\t\t[ \"$_k_stop\" = 1 ] && break\n\tfi\ndone\nexit \"$_k_rc\"\n", "jobshift-restart", "mpirun", "-n", "6", "/home/mpiuser/pi"]
        command = "sh"
      }
      env {
        CUDA_VISIBLE_DEVICES = ""
        JOBSHIFT_SSH_KEY     = "$${NOMAD_SECRETS_DIR}/jobshift-ssh-key"
      }
      resources {
      }
      template {
        destination = "local/jobshift.env"
        data        = <<EOT
{{- $h := "" -}}{{- $all := nomadService "alice-pi-launcher-ssh-0" -}}{{- range $i := loop 1 -}}{{- range $all -}}{{- if and (eq .JobID (env "NOMAD_JOB_ID")) (.Tags | contains (printf "idx-%d" $i)) -}}{{- if ne $h "" }}{{ $h = printf "%s," $h }}{{ end -}}{{- $h = printf "%s%s:%d" $h .Address .Port -}}{{- end -}}{{- end -}}{{- end }}
JS_HOSTS_LAUNCHER={{ $h }}
{{- $h := "" -}}{{- $all := nomadService "alice-pi-worker-ssh-0" -}}{{- range $i := loop 2 -}}{{- range $all -}}{{- if and (eq .JobID (env "NOMAD_JOB_ID")) (.Tags | contains (printf "idx-%d" $i)) -}}{{- if ne $h "" }}{{ $h = printf "%s," $h }}{{ end -}}{{- $h = printf "%s%s:%d" $h .Address .Port -}}{{- end -}}{{- end -}}{{- end }}
JS_HOSTS_WORKER={{ $h }}
JS_ROLE=launcher
JS_INDEX={{ env "NOMAD_ALLOC_INDEX" }}
EOT
        change_mode = "noop"
        once        = true
        env         = true
      }
      template {
        destination = "secrets/jobshift-sshemu.sh"
        data        = "{{ base64Decode \"IyBqb2JzaGlmdCBzc2ggZW11bGF0aW9uOiB3aGF0IE9wZW5QQUkncyBzc2ggcnVudGltZSBwbHVnaW4gYW5kCiMgbXBpLW9wZXJhdG9yJ3MgcG9kcyBnYXZlIGV2ZXJ5IHRhc2ssIHJlYnVpbHQgd2l0aG91dCByb290IGFuZCB3aXRob3V0CiMgdG91Y2hpbmcgdGhlIHVzZXIncyB+Ly5zc2g6CiMgICAtIGFuIHNzaGQgb2YgdGhlIHRhc2sncyBvd24gb24gaXRzIGBzc2hgIHBvcnQsIGFjY2VwdGluZyB0aGUgam9iJ3Mga2V5CiMgICAgIChhbmQgdGhlIHVzZXJzc2ggcHVibGljIGtleXMpLCB3aXRoIGEgaG9zdCBrZXkgbWFkZSBoZXJlOwojICAgLSBhbiBzc2ggY2xpZW50IGNvbmZpZyB3aG9zZSBIb3N0IGVudHJpZXMgbWFwIGV2ZXJ5IHBlZXIncyBhbGlhcwojICAgICAoPHJvbGU+LTxpPiwgb3IgdGhlIE1QSUpvYiBwb2QgaG9zdCBuYW1lcykgdG8gaXRzIGFkZHJlc3MgYW5kIHBvcnQsCiMgICAgIHVzZWQgdGhyb3VnaCBhbiBgc3NoYCBlYXJseSBvbiBQQVRILCBzbyBgc3NoIHdvcmtlci0wYCwgbXBpcnVuIGFuZAojICAgICBob3Jvdm9kcnVuIHJlYWNoIHRoZSBwZWVycyB1bmNoYW5nZWQ7CiMgICAtIGZvciBhbiBNUElKb2IgdGFzaywgdGhlIGhvc3RmaWxlIChhbmQga3ViZXhlYy5zaCkgaW4gdGhlIG1waSBkaXI7CiMgICAtIHNzaGJhcnJpZXI6IHRoZSBjb21tYW5kIHN0YXJ0cyBvbmNlIGV2ZXJ5IHBlZXIncyBzc2hkIGFuc3dlcnMuCiMgVGhlbiBpdCBleGVjcyB0aGUgY29tbWFuZCAob3IsIHdpdGggLS1pZGxlLCBydW5zIHRoZSBzc2hkIGluIHRoZQojIGZvcmVncm91bmQ6IGFuIE1QSUpvYiB3b3JrZXIgd2hvc2Ugb3duIGNvbW1hbmQgd2FzIGFuIHNzaGQpLgojCiMgVXNhZ2U6IHNoIHNzaGVtdS5zaCBbLS1pZGxlXSBbLS1dIGNvbW1hbmQgW2FyZ3MuLi5dCiMgRW52aXJvbm1lbnQgKHNlZSBkcml2ZXJzL3NzaGVtdSBhbmQgdHJhbnNsYXRlL2NvbnRyYWN0L3NzaC5nbyk6CiMgICBKT0JTSElGVF9TU0hfSE9TVFMgICAiPGFkZHI+IDxwb3J0PiA8YWxpYXM+Li4uIiwgZW50cmllcyBqb2luZWQgYnkgJywnCiMgICBKT0JTSElGVF9TU0hfU0VMRiAgICB0aGlzIHRhc2sncyBmaXJzdCBhbGlhcwojICAgSk9CU0hJRlRfU1NIX0tFWSAgICAgdGhlIGpvYidzIHByaXZhdGUga2V5IGZpbGUgKGEgc2VjcmV0OyByZWFkIG9ubHkpCiMgICBKT0JTSElGVF9TU0hfRElSICAgICB3aGVyZSB0aGlzIHRhc2sncyBzc2hkIGFuZCBjbGllbnQgZmlsZXMgZ28sIGluIGEKIyAgICAgICAgICAgICAgICAgICAgICAgIGRpcmVjdG9yeSBubyBvdGhlciB1c2VyIGNhbiB3cml0ZSAoIiIgPSBhIG5ldwojICAgICAgICAgICAgICAgICAgICAgICAgZGlyZWN0b3J5IHVuZGVyICRUTVBESVIgaWYgdGhhdCBpcyBzbywgZWxzZSAvdG1wKQojICAgSk9CU0hJRlRfU1NIX1VTRVJLRVlTICBleHRyYSBhdXRob3JpemVkIHB1YmxpYyBrZXlzLCBvbmUgcGVyIGxpbmUKIyAgIEpPQlNISUZUX1NTSF9CQVJSSUVSIHNlY29uZHMgdG8gd2FpdCBmb3IgZXZlcnkgcGVlciAoIiIgPSBubyBiYXJyaWVyKQojICAgSk9CU0hJRlRfTVBJX0RJUiwgSk9CU0hJRlRfTVBJX0hPU1RGSUxFICBob3N0ZmlsZSBsaW5lcyBqb2luZWQgYnkgJywnCiMgICBKT0JTSElGVF9NUElSVU4gICAgICBhIHByb2dyYW0gcnVuIGFzIG1waXJ1bi9tcGlleGVjL29ydGVydW4gKCIiID0gbm9uZSkKIyBFeGl0IGNvZGVzOiAyNDkgYmFycmllciB0aW1lb3V0IChPcGVuUEFJJ3MgY29kZSksIDEgc2V0dXAgZmFpbHVyZS4KCnNldCAtdQp1bWFzayAwNzcKCmZhaWwoKSB7CglwcmludGYgJ2pvYnNoaWZ0IHNzaCBlbXVsYXRpb246ICVzXG4nICIkKiIgPiYyCgltcGlfcmVsZWFzZQoJZXhpdCAxCn0KCiMgVGhlIE1QSSBkaXJlY3RvcnkgbGl2ZXMgYXMgbG9uZyBhcyBhIHRhc2sgdGhhdCB1c2VzIGl0OiBlYWNoIHRhc2sgaG9sZHMKIyBhIG1hcmtlciBpbiBpdCwgYW5kIHRoZSBsYXN0IG9uZSB0byBlbmQgcmVtb3ZlcyB0aGUgZGlyZWN0b3J5IChzZXZlcmFsCiMgdGFza3Mgb2YgYSBqb2IgbWF5IHNoYXJlIGl0IG9uIG9uZSBob3N0LCBlLmcuIE5vbWFkJ3MgL3RtcCBwYXRoKS4KbWFya2VyPScnCm1waV9yZWxlYXNlKCkgewoJWyAtbiAiJG1hcmtlciIgXSB8fCByZXR1cm4gMAoJcm0gLWYgIiRtYXJrZXIiCgltYXJrZXI9JycKCWZvciBtIGluICIkbWRpciIvLnRhc2suKjsgZG8KCQlbIC1lICIkbSIgXSAmJiByZXR1cm4gMAoJZG9uZQoJcm0gLXJmICIkbWRpciIKfQoKIyBvd25fZGlyIG1ha2VzIERJUiB0aGlzIHVzZXIncyBwcml2YXRlIGRpcmVjdG9yeSwgb3IgcmVmdXNlcyBpdC4gT24gYQojIHNoYXJlZCBtYWNoaW5lIGEgcGF0aCBvdGhlcnMgY2FuIHByZWRpY3QgKE5vbWFkJ3Mgam9ic2hpZnQtbXBpLTxqb2I+KSBtYXkKIyBoYXZlIGJlZW4gbWFkZSBieSBhbm90aGVyIHVzZXIsIHdobyBjb3VsZCB0aGVuIHN3YXAgdGhlIGZpbGVzIHRoaXMgdGFzawojIHJ1bnMgKGt1YmV4ZWMuc2gsIGJpbi9zc2gpOiBESVIgbXVzdCBiZSBtYWRlIGZyZXNoIGhlcmUsIG9yIGJlIGEgcmVhbAojIGRpcmVjdG9yeSBvZiB0aGlzIHVzZXIncyB0aGF0IG5vYm9keSBlbHNlIGNhbiB3cml0ZSAob25lIHRoYXQgYW5vdGhlcgojIHRhc2sgb2YgdGhpcyBqb2IgbWFkZSkuIEEgZGlyZWN0b3J5IG9mIG91cnMgaW4gYSBzdGlja3kgL3RtcCBjYW5ub3QgYmUKIyByZW5hbWVkIG9yIHJlcGxhY2VkIGJ5IGFub3RoZXIgdXNlciBhZnRlcndhcmRzLgpvd25fZGlyKCkgewoJZD0kMQoJbWtkaXIgIiRkIiAyPi9kZXYvbnVsbAoJeyBbICEgLUwgIiRkIiBdICYmIFsgLWQgIiRkIiBdOyB9IHx8IGZhaWwgIiRkIGlzIG5vdCBhIGRpcmVjdG9yeSAoYSBsaW5rIG9yIGEgZmlsZSBpcyBpbiB0aGUgd2F5KTogcmVmdXNpbmcgaXQiCgkjIHNoZWxsY2hlY2sgZGlzYWJsZT1TQzIwNDYgIyBscydzIGZpZWxkcywgc3BsaXQgb24gcHVycG9zZQoJc2V0IC0tICQobHMgLWxkICIkZCIpCglbIC1PICIkZCIgXSB8fCBmYWlsICIkZCBiZWxvbmdzIHRvIGFub3RoZXIgdXNlciAoJDMpOiByZWZ1c2luZyBpdDsgcmVtb3ZlIGl0IG9yIG5hbWUgYW5vdGhlciBkaXJlY3RvcnkiCgljYXNlICQxIGluCgk/Pz8/P3cqIHwgPz8/Pz8/Pz93KikgZmFpbCAiJGQgaXMgd3JpdGFibGUgYnkgb3RoZXIgdXNlcnMgKCQxKTogcmVmdXNpbmcgaXQiIDs7Cgllc2FjCgljaG1vZCA3MDAgIiRkIiB8fCBmYWlsICJjYW5ub3QgcHJvdGVjdCAkZCIKfQoKIyBzYWZlX2RpciBESVI6IG5vIG90aGVyIHVzZXIgY2FuIHJlbmFtZSBESVIncyBlbnRyaWVzIGF3YXkgYW5kIHB1dCB0aGVpcgojIG93biBpbiB0aGVpciBwbGFjZTogRElSIGJlbG9uZ3MgdG8gcm9vdCBvciB0aGlzIHVzZXIgYW5kIGlzIHdyaXRhYmxlIGJ5CiMgbm9ib2R5IGVsc2UsIG9yIGlzIHN0aWNreSAoL3RtcCkuIE5vbWFkJ3MgdGFzayBkaXJlY3RvcmllcyBhcmUgbmVpdGhlcgojICgwNzc3LCBvd25lZCBieSBub2JvZHk6IE5vbWFkIHYxLjExLjMgY2xpZW50L2FsbG9jZGlyKS4Kc2FmZV9kaXIoKSB7CgkjIHNoZWxsY2hlY2sgZGlzYWJsZT1TQzIwNDYgIyBscydzIGZpZWxkcywgc3BsaXQgb24gcHVycG9zZQoJc2V0IC0tICQobHMgLWxkbiAiJDEiKQoJWyAiJDMiID0gMCBdIHx8IFsgIiQzIiA9ICIkKGlkIC11KSIgXSB8fCByZXR1cm4gMQoJY2FzZSAkMSBpbgoJPz8/Pz8/Pz8/W3RUXSopIHJldHVybiAwIDs7Cgk/Pz8/P3cqIHwgPz8/Pz8/Pz93KikgcmV0dXJuIDEgOzsKCWVzYWMKCXJldHVybiAwCn0KCmlkbGU9MAppZiBbICIkezE6LX0iID0gLS1pZGxlIF07IHRoZW4KCWlkbGU9MQoJc2hpZnQKZmkKaWYgWyAiJHsxOi19IiA9IC0tIF07IHRoZW4KCXNoaWZ0CmZpCgpob3N0cz0ke0pPQlNISUZUX1NTSF9IT1NUUzo/fQptZT0ke0pPQlNISUZUX1NTSF9TRUxGOj99CmtleT0ke0pPQlNISUZUX1NTSF9LRVk6P30KZGlyPSR7Sk9CU0hJRlRfU1NIX0RJUjotfQptYWRlPScnCmlmIFsgLXogIiRkaXIiIF07IHRoZW4KCSMgYSBmcmVzaCBkaXJlY3Rvcnkgb2YgYSBuYW1lIG5vYm9keSBjYW4gcHJlZGljdCwgdW5kZXIgJFRNUERJUiBpZiBubwoJIyBvbmUgZWxzZSBjYW4gcmVwbGFjZSB3aGF0IGlzIGluIGl0LCBlbHNlIHVuZGVyIC90bXAKCWJhc2U9JHtUTVBESVI6LS90bXB9CglzYWZlX2RpciAiJGJhc2UiIHx8IGJhc2U9L3RtcAoJZGlyPSQobWt0ZW1wIC1kICIkYmFzZS9qb2JzaGlmdC1zc2guWFhYWFhYIikgfHwgZmFpbCAiY2Fubm90IG1ha2UgYSBkaXJlY3RvcnkgdW5kZXIgJGJhc2UiCgltYWRlPSRkaXIKZmkKc2FmZV9kaXIgIiQoZGlybmFtZSAiJGRpciIpIiB8fCBmYWlsICIkKGRpcm5hbWUgIiRkaXIiKSBjYW4gYmUgd3JpdHRlbiBieSBvdGhlciB1c2Vycywgd2hvIGNvdWxkIHJlcGxhY2UgJGRpcjogbmFtZSBhIGRpcmVjdG9yeSB1bmRlciBvbmUgb2YgeW91cnMiCm93bl9kaXIgIiRkaXIiCm93bl9kaXIgIiRkaXIvYmluIgoKc3NoZD0ke0pPQlNISUZUX1NTSEQ6LX0KaWYgWyAteiAiJHNzaGQiIF07IHRoZW4KCXNzaGQ9JChjb21tYW5kIC12IHNzaGQpIHx8IHNzaGQ9L3Vzci9zYmluL3NzaGQKZmkKc3NoPSQoY29tbWFuZCAtdiBzc2gpIHx8IGZhaWwgInNzaCBub3QgZm91bmQgb24gUEFUSCAoaW5zdGFsbCBvcGVuc3NoLWNsaWVudCkiCmNhdD0kKGNvbW1hbmQgLXYgY2F0KSB8fCBmYWlsICJjYXQgbm90IGZvdW5kIG9uIFBBVEgiCmtleWdlbj0kKGNvbW1hbmQgLXYgc3NoLWtleWdlbikgfHwgZmFpbCAic3NoLWtleWdlbiBub3QgZm91bmQgb24gUEFUSCAoaW5zdGFsbCBvcGVuc3NoLWNsaWVudCkiClsgLXggIiRzc2hkIiBdIHx8IGZhaWwgInNzaGQgbm90IGZvdW5kIChpbnN0YWxsIG9wZW5zc2gtc2VydmVyLCBvciBzZXQgSk9CU0hJRlRfU1NIRCkiCnVzZXI9JChpZCAtdW4pIHx8IGZhaWwgImNhbm5vdCB0ZWxsIHRoZSB1c2VyIG5hbWUiCgojIHEgcXVvdGVzIGEgdmFsdWUgZm9yIHNzaF9jb25maWcgLyBzc2hkX2NvbmZpZyAoIi4uLiI7ICclJyBkb3VibGVkIGZvciB0aGUKIyB0b2tlbnMgc3NoZCBleHBhbmRzKS4KcSgpIHsgcHJpbnRmICciJXMiJyAiJChwcmludGYgJyVzJyAiJDEiIHwgc2VkICdzLyUvJSUvZycpIjsgfQojIHNxIHF1b3RlcyBhIHZhbHVlIGZvciBzaC4Kc3EoKSB7IHByaW50ZiAiJyVzJyIgIiQocHJpbnRmICclcycgIiQxIiB8IHNlZCAicy8nLydcXFxcJycvZyIpIjsgfQoKIyBUaGUga2V5IGlzIHVzZWQgd2hlcmUgdGhlIHRhcmdldCBwdXQgaXQgKDA2MDApOiBubyBjb3B5IG9mIGEgc2VjcmV0LiBJdHMKIyBwdWJsaWMgaGFsZiBpcyB3aGF0IHRoZSBzc2hkIGF1dGhvcml6ZXMsIHNvIGl0IG11c3QgYmUgdGhlIHRhcmdldCdzIChvcgojIHRoaXMgdXNlcidzKSBmaWxlLCBub3Qgb25lIGFub3RoZXIgdXNlciBwdXQgYXQgaXRzIG5hbWUuCmtleV9vaygpIHsKCXsgWyAhIC1MICIkMSIgXSAmJiBbIC1mICIkMSIgXTsgfSB8fCByZXR1cm4gMQoJIyBzaGVsbGNoZWNrIGRpc2FibGU9U0MyMDQ2ICMgbHMncyBmaWVsZHMsIHNwbGl0IG9uIHB1cnBvc2UKCXNldCAtLSAkKGxzIC1sbiAiJDEiKQoJWyAiJDMiID0gMCBdIHx8IFsgIiQzIiA9ICIkKGlkIC11KSIgXQp9CmtleV9vayAiJGtleSIgfHwgZmFpbCAidGhlIGpvYiBrZXkgJGtleSBpcyBub3QgYSBmaWxlIG9mIHJvb3QncyBvciB0aGlzIHVzZXInczogcmVmdXNpbmcgaXQiCiIka2V5Z2VuIiAteSAtZiAiJGtleSIgPiIkZGlyL2lkLnB1YiIgfHwgZmFpbCAiY2Fubm90IHJlYWQgdGhlIGpvYiBrZXkgJGtleSIKewoJY2F0ICIkZGlyL2lkLnB1YiIKCWlmIFsgLW4gIiR7Sk9CU0hJRlRfU1NIX1VTRVJLRVlTOi19IiBdOyB0aGVuCgkJcHJpbnRmICclc1xuJyAiJEpPQlNISUZUX1NTSF9VU0VSS0VZUyIKCWZpCn0gPiIkZGlyL2F1dGhvcml6ZWRfa2V5cyIKcm0gLWYgIiRkaXIvaG9zdF9rZXkiICIkZGlyL2hvc3Rfa2V5LnB1YiIKIiRrZXlnZW4iIC1xIC10IGVkMjU1MTkgLU4gJycgLWYgIiRkaXIvaG9zdF9rZXkiIHx8IGZhaWwgImNhbm5vdCBtYWtlIGEgaG9zdCBrZXkiCgojIFRoZSBjbGllbnQgY29uZmlnOiBvbmUgSG9zdCBibG9jayBwZXIgcGVlciwgdGhlbiB0aGUgam9iLXdpZGUgc2V0dGluZ3MuCiMgKEEgZnVuY3Rpb24sIHNvIGBzZXQgLS1gIGxlYXZlcyB0aGUgY29tbWFuZCdzIGFyZ3VtZW50cyBhbG9uZS4pCmhvc3RfYmxvY2tzKCkgewoJb2xkX2lmcz0kSUZTCglJRlM9LAoJZm9yIGVudHJ5IGluICRob3N0czsgZG8KCQlJRlM9JyAnCgkJIyBzaGVsbGNoZWNrIGRpc2FibGU9U0MyMDg2ICMgdGhlIGVudHJ5IGlzIHNwbGl0IG9uIHB1cnBvc2UKCQlzZXQgLS0gJGVudHJ5CgkJSUZTPSwKCQlbICQjIC1nZSAzIF0gfHwgZmFpbCAiYmFkIGhvc3QgZW50cnkgJyRlbnRyeSciCgkJYT0kMSBwPSQyCgkJc2hpZnQgMgoJCSMgRXZlcnkgdmFsdWUgaXMgY2hlY2tlZCBiZWZvcmUgaXQgcmVhY2hlcyBzc2hfY29uZmlnICh0aGUgZ3JhbW1hcgoJCSMgb2YgdHJhbnNsYXRlL2NvbnRyYWN0J3MgdG9wb2xvZ3kgY2hlY2tzKTogYW4gYWRkcmVzcyBmcm9tIGEKCQkjIGZvcmdlZCB0b3BvbG9neSBjb3VsZCBjYXJyeSBhIG5ld2xpbmUgYW5kIGEgUHJveHlDb21tYW5kLgoJCWNhc2UgJGEgaW4gJycgfCAqWyFBLVphLXowLTkuOl8tXSopIGZhaWwgImJhZCBhZGRyZXNzIGluIGhvc3QgZW50cnkgJyRlbnRyeSciIDs7IGVzYWMKCQljYXNlICRwIGluICcnIHwgKlshMC05XSogfCAwKikgZmFpbCAiYmFkIHBvcnQgaW4gaG9zdCBlbnRyeSAnJGVudHJ5JyIgOzsgZXNhYwoJCVsgIiRwIiAtbGUgNjU1MzUgXSB8fCBmYWlsICJiYWQgcG9ydCBpbiBob3N0IGVudHJ5ICckZW50cnknIgoJCWZvciBuIGluICIkQCI7IGRvCgkJCWNhc2UgJG4gaW4gJycgfCAqWyFBLVphLXowLTkuXy1dKikgZmFpbCAiYmFkIGhvc3QgbmFtZSBpbiBob3N0IGVudHJ5ICckZW50cnknIiA7OyBlc2FjCgkJZG9uZQoJCUlGUz0nICcgIyAiJCoiIGpvaW5zIHdpdGggdGhlIGZpcnN0IGNoYXJhY3RlciBvZiBJRlMKCQlwcmludGYgJ0hvc3QgJXNcblx0SG9zdE5hbWUgJXNcblx0UG9ydCAlc1xuJyAiJCoiICIkKHEgIiRhIikiICIkcCIgPj4iJGRpci9zc2hfY29uZmlnIgoJCUlGUz0sCgkJYWxpYXNlcz0iJGFsaWFzZXMgJDEiCgkJZm9yIG4gaW4gIiRAIjsgZG8KCQkJaWYgWyAiJG4iID0gIiRtZSIgXTsgdGhlbgoJCQkJYWRkcj0kYSBwb3J0PSRwCgkJCWZpCgkJZG9uZQoJZG9uZQoJSUZTPSRvbGRfaWZzCn0KYWRkcj0nJyBwb3J0PScnIGFsaWFzZXM9JycKOiA+IiRkaXIvc3NoX2NvbmZpZyIKaG9zdF9ibG9ja3MKWyAtbiAiJHBvcnQiIF0gfHwgZmFpbCAidGhpcyB0YXNrICgkbWUpIGlzIG5vdCBpbiBKT0JTSElGVF9TU0hfSE9TVFMiCmNhdCA+PiIkZGlyL3NzaF9jb25maWciIDw8RU9GCkhvc3QgKgoJVXNlciAkdXNlcgoJSWRlbnRpdHlGaWxlICQocSAiJGtleSIpCglJZGVudGl0aWVzT25seSB5ZXMKCVN0cmljdEhvc3RLZXlDaGVja2luZyBubwoJVXNlcktub3duSG9zdHNGaWxlIC9kZXYvbnVsbAoJR2xvYmFsS25vd25Ib3N0c0ZpbGUgL2Rldi9udWxsCglMb2dMZXZlbCBFUlJPUgoJQmF0Y2hNb2RlIHllcwoJQ29ubmVjdGlvbkF0dGVtcHRzIDEwCkVPRgpwcmludGYgJyMhL2Jpbi9zaFxuZXhlYyAlcyAtRiAlcyAiJEAiXG4nICIkKHNxICIkc3NoIikiICIkKHNxICIkZGlyL3NzaF9jb25maWciKSIgPiIkZGlyL2Jpbi9zc2giCmNobW9kIDcwMCAiJGRpci9iaW4vc3NoIgojIEEgdGFyZ2V0IHRoYXQgbGF1bmNoZXMgTVBJIHJhbmtzIGl0c2VsZiAoU2x1cm0ncyBtcGkgPSAicG1peCIpIG5hbWVzIGl0cwojIG1waXJ1biBpbiBKT0JTSElGVF9NUElSVU46IHRoZSB1c2VyJ3MgbXBpcnVuIGxpbmUgcnVucyBpdCB1bmNoYW5nZWQuCmlmIFsgLW4gIiR7Sk9CU0hJRlRfTVBJUlVOOi19IiBdOyB0aGVuCglmb3IgbSBpbiBtcGlydW4gbXBpZXhlYyBvcnRlcnVuOyBkbwoJCXByaW50ZiAnIyEvYmluL3NoXG5KT0JTSElGVF9NUElSVU5fU0tJUD0lcyBleGVjIHNoICVzICIkQCJcbicgIiQoc3EgIiRkaXIvYmluIikiICIkKHNxICIkSk9CU0hJRlRfTVBJUlVOIikiID4iJGRpci9iaW4vJG0iCgkJY2htb2QgNzAwICIkZGlyL2Jpbi8kbSIKCWRvbmUKZmkKUEFUSD0kZGlyL2JpbjokUEFUSApleHBvcnQgUEFUSAoKIyBUaGUgc3NoZDoga2V5IGxvZ2lucyBvbmx5LCBmb3IgdGhpcyB1c2VyLCB3aXRoIHRoZSB0YXNrJ3Mgc2VhcmNoIHBhdGhzCiMgKGFuIHNzaCBzZXNzaW9uIHN0YXJ0cyB3aXRoIGEgZnJlc2ggZW52aXJvbm1lbnQ7IE9wZW5QQUkgY29waWVkIGl0cwojIHZhcmlhYmxlcyB0byAvZXRjL2Vudmlyb25tZW50IGZvciB0aGUgc2FtZSByZWFzb24pLgp7CglwcmludGYgJ1BvcnQgJXNcbkxpc3RlbkFkZHJlc3MgJXNcbicgIiRwb3J0IiAiJGFkZHIiCglwcmludGYgJ0hvc3RLZXkgJXNcblBpZEZpbGUgJXNcbicgIiQocSAiJGRpci9ob3N0X2tleSIpIiAiJChxICIkZGlyL3NzaGQucGlkIikiCgkjIFN0cmljdE1vZGVzIGNoZWNrcyBhbiBBdXRob3JpemVkS2V5c0ZpbGUncyBldmVyeSBwYXJlbnQgZGlyZWN0b3J5LAoJIyB3aGljaCBvbiBOb21hZCAoMDc3NykgYW5kIHVuZGVyIC90bXAgKDE3NzcpIGZhaWxzOiB0aGUga2V5cyBjb21lCgkjIGZyb20gYSBjb21tYW5kIGluc3RlYWQgKHJvb3QncyBjYXQsIHdoaWNoIHNzaGQgY2hlY2tzKSByZWFkaW5nIHRoZW0KCSMgaW4gdGhpcyBwcml2YXRlIGRpcmVjdG9yeSwgd2hpY2ggc2FmZV9wYXJlbnQga2VlcHMgaW4gcGxhY2UuCglwcmludGYgJ0F1dGhvcml6ZWRLZXlzRmlsZSBub25lXG5BdXRob3JpemVkS2V5c0NvbW1hbmQgJXMgJXNcbkF1dGhvcml6ZWRLZXlzQ29tbWFuZFVzZXIgJXNcbicgIiRjYXQiICIkKHEgIiRkaXIvYXV0aG9yaXplZF9rZXlzIikiICIkdXNlciIKCXByaW50ZiAnU3RyaWN0TW9kZXMgeWVzXG5Vc2VQQU0gbm9cblBhc3N3b3JkQXV0aGVudGljYXRpb24gbm9cbktiZEludGVyYWN0aXZlQXV0aGVudGljYXRpb24gbm9cbicKCXByaW50ZiAnUHVia2V5QXV0aGVudGljYXRpb24geWVzXG5QZXJtaXRSb290TG9naW4gcHJvaGliaXQtcGFzc3dvcmRcbkFsbG93VXNlcnMgJXNcbicgIiR1c2VyIgoJcHJpbnRmICdQcmludE1vdGQgbm9cblgxMUZvcndhcmRpbmcgbm9cbk1heFN0YXJ0dXBzIDEwMDozMDoyMDBcbk1heFNlc3Npb25zIDEwMFxuJwoJZm9yIHYgaW4gUEFUSCBMRF9MSUJSQVJZX1BBVEggUFlUSE9OUEFUSCBPTVBJX0FMTE9XX1JVTl9BU19ST09UIE9NUElfQUxMT1dfUlVOX0FTX1JPT1RfQ09ORklSTTsgZG8KCQlldmFsICJ2YWw9XCR7JHYtfSIKCQkjIHNoZWxsY2hlY2sgZGlzYWJsZT1TQzIxNTQgIyB2YWwgaXMgc2V0IGJ5IHRoZSBldmFsCgkJY2FzZSAkdmFsIGluCgkJJycgfCAqJyInKiB8IConJScqKSA7OwoJCSopIHByaW50ZiAnU2V0RW52ICIlcz0lcyJcbicgIiR2IiAiJHZhbCIgOzsKCQllc2FjCglkb25lCn0gPiIkZGlyL3NzaGRfY29uZmlnIgppZiBbICIkKGlkIC11KSIgPSAwIF07IHRoZW4KCW1rZGlyIC1wIC9ydW4vc3NoZCAyPi9kZXYvbnVsbCAjIHByaXZpbGVnZSBzZXBhcmF0aW9uIGRpcmVjdG9yeQpmaQoKIyBFdmVyeSBNUElKb2IgdGFzaydzIGZpbGVzLCBhcyB0aGUgb3BlcmF0b3IncyBDb25maWdNYXAgaGVsZCB0aGVtLgppZiBbIC1uICIke0pPQlNISUZUX01QSV9IT1NURklMRTotfSIgXTsgdGhlbgoJbWRpcj0ke0pPQlNISUZUX01QSV9ESVI6P30KCSMgcHJpdmF0ZTogb25seSB0aGlzIHVzZXIncyB0YXNrcyByZWFkIGl0IChTbHVybSBtYWRlIGl0IDA3MDAgYWxyZWFkeSkKCW93bl9kaXIgIiRtZGlyIgoJbWFya2VyPSQobWt0ZW1wICIkbWRpci8udGFzay4kbWUuWFhYWFhYIikgfHwgZmFpbCAiY2Fubm90IHdyaXRlIGluICRtZGlyIgoJIyBzaGVsbGNoZWNrIGRpc2FibGU9U0MyMDE1ICMgZmFpbCBleGl0cwoJcHJpbnRmICclc1xuJyAiJEpPQlNISUZUX01QSV9IT1NURklMRSIgfCB0ciAnLCcgJ1xuJyA+IiRtZGlyL2hvc3RmaWxlLnRtcC4kJCIgJiYgbXYgLWYgIiRtZGlyL2hvc3RmaWxlLnRtcC4kJCIgIiRtZGlyL2hvc3RmaWxlIiB8fAoJCWZhaWwgImNhbm5vdCB3cml0ZSAkbWRpci9ob3N0ZmlsZSIKCSMga3ViZXhlYy5zaCB3YXMgYGt1YmVjdGwgZXhlYyA8cG9kPiAtLSAvYmluL3NoIC1jICIkKiJgOyBzc2ggcnVucyB0aGUKCSMgc2FtZSBjb21tYW5kIGxpbmUgb24gdGhlIHNhbWUgcG9kLiBUaGUgc2FtZSB0ZXh0IGluIGV2ZXJ5IHRhc2sgKHRhc2tzCgkjIG9uIG9uZSBob3N0IHNoYXJlIHRoZSBkaXJlY3RvcnkpOiB0aGUgc3NoIG9uIFBBVEggaXMgZWFjaCB0YXNrJ3Mgb3duLgoJIyBzaGVsbGNoZWNrIGRpc2FibGU9U0MyMDE1ICMgZmFpbCBleGl0cwoJcHJpbnRmICcjIS9iaW4vc2hcbmV4ZWMgc3NoICIkQCJcbicgPiIkbWRpci9rdWJleGVjLnNoLnRtcC4kJCIgJiYKCQljaG1vZCA3NTUgIiRtZGlyL2t1YmV4ZWMuc2gudG1wLiQkIiAmJiBtdiAtZiAiJG1kaXIva3ViZXhlYy5zaC50bXAuJCQiICIkbWRpci9rdWJleGVjLnNoIiB8fAoJCWZhaWwgImNhbm5vdCB3cml0ZSAkbWRpci9rdWJleGVjLnNoIgoJY2htb2QgNjQ0ICIkbWRpci9ob3N0ZmlsZSIKZmkKCiIkc3NoZCIgLXQgLWYgIiRkaXIvc3NoZF9jb25maWciIHx8IGZhaWwgInNzaGQgcmVqZWN0cyBpdHMgY29uZmlndXJhdGlvbiAkZGlyL3NzaGRfY29uZmlnIgppZiBbICIkaWRsZSIgPSAxIF07IHRoZW4KCWlmIFsgLXogIiRtYXJrZXIiIF07IHRoZW4KCQlleGVjICIkc3NoZCIgLUQgLWUgLWYgIiRkaXIvc3NoZF9jb25maWciCglmaQoJIyB0aGUgc3NoZCBpbiB0aGUgZm9yZWdyb3VuZCwgYnV0IHRoaXMgc2hlbGwgc3RheXMgdG8gcmVsZWFzZSB0aGUKCSMgTVBJIGRpcmVjdG9yeSB3aGVuIHRoZSB0YXJnZXQgc3RvcHMgdGhlIHRhc2sKCSMgdGhlIHRyYXAgaXMgc2V0IGJlZm9yZSB0aGUgZm9yayBhbmQgYSBzdG9wIHRoYXQgY2FtZSBiZWZvcmUgJHNwaWQKCSMgd2FzIGtub3duIGlzIHBhc3NlZCBvbiBhZnRlcjogbm8gc3RvcCBpcyBsb3N0IChub3Iga2lsbHMgdGhpcyBzaGVsbAoJIyBiZWZvcmUgaXQgcmVsZWFzZWQgdGhlIE1QSSBkaXJlY3RvcnkpCglzdG9wPTAgc3BpZD0KCXRyYXAgJ3N0b3A9MTsgWyAtbiAiJHNwaWQiIF0gJiYga2lsbCAiJHNwaWQiIDI+L2Rldi9udWxsJyBURVJNIElOVCBIVVAKCSIkc3NoZCIgLUQgLWUgLWYgIiRkaXIvc3NoZF9jb25maWciIDwvZGV2L251bGwgJgoJc3BpZD0kIQoJWyAiJHN0b3AiID0gMSBdICYmIGtpbGwgIiRzcGlkIiAyPi9kZXYvbnVsbAoJd2FpdCAiJHNwaWQiCglyYz0kPwoJa2lsbCAiJHNwaWQiIDI+L2Rldi9udWxsICYmIHdhaXQgIiRzcGlkIgoJbXBpX3JlbGVhc2UKCVsgLXogIiRtYWRlIiBdIHx8IHJtIC1yZiAiJG1hZGUiCglleGl0ICIkcmMiCmZpCiMgVGhlIHNzaGQgbGl2ZXMgYXMgbG9uZyBhcyB0aGUgY29tbWFuZDogYSB3YXRjaGVyIHN0b3BzIGl0IG9uY2UgdGhlCiMgcHJvY2VzcyB0aGF0IGJlY29tZXMgdGhlIGNvbW1hbmQgKHRoaXMgc2hlbGwncyBwaWQpIGlzIGdvbmUsIHdoYXRldmVyCiMgdGhlIHRhcmdldCdzIG93biBjbGVhbi11cCBkb2VzLgptYWluPSQkCigKCSIkc3NoZCIgLUQgLWUgLWYgIiRkaXIvc3NoZF9jb25maWciIDI+PiIkZGlyL3NzaGQubG9nIiA8L2Rldi9udWxsICYKCXNwaWQ9JCEKCSMgYSBzdG9wIHNpZ25hbCB0byB0aGUgdGFzaydzIHByb2Nlc3MgZ3JvdXAgZW5kcyB0aGUgY29tbWFuZCwgbm90IHRoZQoJIyB3YXRjaGVyOiBpdCBzdGlsbCBzdG9wcyB0aGUgc3NoZCBhbmQgcmVsZWFzZXMgdGhlIE1QSSBkaXJlY3RvcnkKCSMgKHNldCBhZnRlciB0aGUgc3NoZCBzdGFydGVkOiBhbiBpZ25vcmVkIHNpZ25hbCBzdGF5cyBpZ25vcmVkIGluIGl0KQoJdHJhcCAnJyBURVJNIElOVCBIVVAKCXdoaWxlIGtpbGwgLTAgIiRtYWluIiAyPi9kZXYvbnVsbCAmJiBraWxsIC0wICIkc3BpZCIgMj4vZGV2L251bGw7IGRvCgkJc2xlZXAgMQoJZG9uZQoJa2lsbCAiJHNwaWQiIDI+L2Rldi9udWxsCgltcGlfcmVsZWFzZQoJWyAteiAiJG1hZGUiIF0gfHwgcm0gLXJmICIkbWFkZSIKKSA8L2Rldi9udWxsID4vZGV2L251bGwgMj4mMSAmCgppZiBbIC1uICIke0pPQlNISUZUX1NTSF9CQVJSSUVSOi19IiBdOyB0aGVuCgllbmQ9JCgoJChkYXRlICslcykgKyBKT0JTSElGVF9TU0hfQkFSUklFUikpCglmb3IgaCBpbiAkYWxpYXNlczsgZG8KCQl1bnRpbCBzc2ggLW8gQ29ubmVjdFRpbWVvdXQ9MiAtbyBDb25uZWN0aW9uQXR0ZW1wdHM9MSAiJGgiIHRydWUgPC9kZXYvbnVsbCAyPi9kZXYvbnVsbDsgZG8KCQkJaWYgWyAiJChkYXRlICslcykiIC1nZSAiJGVuZCIgXTsgdGhlbgoJCQkJcHJpbnRmICdqb2JzaGlmdCBzc2ggZW11bGF0aW9uOiBzc2hiYXJyaWVyOiAlcyBkb2VzIG5vdCBhbnN3ZXIgYWZ0ZXIgJXNzXG4nICIkaCIgIiRKT0JTSElGVF9TU0hfQkFSUklFUiIgPiYyCgkJCQltcGlfcmVsZWFzZQoJCQkJZXhpdCAyNDkKCQkJZmkKCQkJc2xlZXAgMQoJCWRvbmUKCWRvbmUKZmkKIyBVbmRlciBTbHVybSwgT3Blbk1QSSdzIGFuZCBIeWRyYSdzIGxhdW5jaGVycyB3b3VsZCBzZWUgdGhlIGFsbG9jYXRpb24KIyBhbmQgc3RhcnQgdGhlaXIgZGFlbW9ucyB3aXRoIHNydW4gb24gU2x1cm0ncyBub2RlcyBpbnN0ZWFkIG9mIHRoZSBwZWVycwojIHRoZSBjb21tYW5kIG5hbWVzOyBvbiB0aGUgc291cmNlIHBsYXRmb3JtIHRoZXkgdXNlZCBzc2ggYW5kIHRoZQojIGhvc3RmaWxlLiAoQSB1c2VyJ3Mgb3duIHNldHRpbmcgd2lucy4pCmlmIFsgLW4gIiR7U0xVUk1fSk9CX0lEOi19IiBdOyB0aGVuCglPTVBJX01DQV9wbG09JHtPTVBJX01DQV9wbG06LXJzaH0KCU9NUElfTUNBX3Jhcz0ke09NUElfTUNBX3JhczotXnNsdXJtfQoJSV9NUElfSFlEUkFfQk9PVFNUUkFQPSR7SV9NUElfSFlEUkFfQk9PVFNUUkFQOi1zc2h9CglIWURSQV9MQVVOQ0hFUj0ke0hZRFJBX0xBVU5DSEVSOi1zc2h9CglleHBvcnQgT01QSV9NQ0FfcGxtIE9NUElfTUNBX3JhcyBJX01QSV9IWURSQV9CT09UU1RSQVAgSFlEUkFfTEFVTkNIRVIKZmkKWyAkIyAtZ3QgMCBdIHx8IHsgbXBpX3JlbGVhc2U7IGV4aXQgMDsgfQpbIC1uICIkbWFya2VyIiBdIHx8IGV4ZWMgIiRAIgojIEEgdGFzayBob2xkaW5nIHRoZSBNUEkgZGlyZWN0b3J5IHJ1bnMgaXRzIGNvbW1hbmQgYXMgYSBjaGlsZCwgc28gdGhhdCBpdAojIGNhbiByZWxlYXNlIHRoZSBkaXJlY3Rvcnkgd2hlbiB0aGUgY29tbWFuZCBlbmRzOiBhbiBleGVjJ2QgY29tbWFuZCdzCiMgZW5kIGlzIHRoZSB0YXNrJ3MsIGFuZCB0aGUgdGFyZ2V0IGtpbGxzIHdoYXQgaXMgbGVmdCBhdCBvbmNlIChOb21hZCdzCiMgZXhlY3V0b3IgZG9lcykuIFN0b3Agc2lnbmFscyBhcmUgcGFzc2VkIG9uOyBzdGRpbiBzdGF5cyB0aGUgdGFzaydzLgojIChUaGUgdHJhcCBpcyBzZXQgYmVmb3JlIHRoZSBmb3JrLCBhbmQgYSBzdG9wIHRoYXQgY2FtZSBiZWZvcmUgJGNwaWQgd2FzCiMga25vd24gaXMgcGFzc2VkIG9uIGFmdGVyIGl0LikKc3RvcD0wIGNwaWQ9CnRyYXAgJ3N0b3A9MTsgWyAtbiAiJGNwaWQiIF0gJiYga2lsbCAtVEVSTSAiJGNwaWQiIDI+L2Rldi9udWxsJyBURVJNIElOVCBIVVAKZXhlYyAzPCYwCiIkQCIgPCYzIDM8Ji0gJgpjcGlkPSQhCmV4ZWMgMzwmLQpbICIkc3RvcCIgPSAxIF0gJiYga2lsbCAtVEVSTSAiJGNwaWQiIDI+L2Rldi9udWxsCndhaXQgIiRjcGlkIgpyYz0kPwp3aGlsZSBraWxsIC0wICIkY3BpZCIgMj4vZGV2L251bGw7IGRvCgl3YWl0ICIkY3BpZCIKCXJjPSQ/CmRvbmUKbXBpX3JlbGVhc2UKZXhpdCAiJHJjIgo=\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0755"
      }
      template {
        destination = "secrets/jobshift-ssh-key"
        data        = "{{ with nomadVar \"nomad/jobs/alice~pi\" }}{{ index . \"jobshift_ssh_key\" }}{{ end }}"
        change_mode = "noop"
        once        = true
        perms       = "0600"
      }
    }
    task "finish" {
      driver = "raw_exec"
      lifecycle {
        hook = "poststop"
      }
      config {
        args    = ["nomad-finish"]
        command = "/usr/local/bin/jobshift"
      }
      resources {
        cpu    = 50
        memory = 64
      }
      identity {
        name = "default"
        env  = true
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
      jobshift_judges = "poststop finisher"
      jobshift_role   = "launcher"
    }
    service {
      name     = "alice-pi-launcher-ssh-0"
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
        args    = ["-c", "n=0\nwhile :; do\n  l=\n  IFS= read -r l < \"$NOMAD_TASK_DIR/barrier\" 2>/dev/null\n  [ \"$l\" = READY ] && exit 0\n  n=$((n+1))\n  if [ \"$n\" -gt 1200 ]; then\n    echo \"jobshift: barrier timeout: after 2m0s not every task of job alice~pi was placed and registered; still missing: $l. Check 'nomad job status alice~pi' for allocations that could not be placed (not enough CPU, memory or GPUs) or that ended early; the timeout is nomad.barrier_timeout in the site config.\" >&2\n    exit 1\n  fi\n  sleep 0.1\ndone\n"]
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
{{- range $s := nomadService "alice-pi-launcher-ssh-0" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "0/" .) true }}{{ end }}{{ end }}{{ end -}}
{{- range $i := loop 1 }}{{ if not (scratch.Key (print "0/idx-" $i)) }}{{ $missing = printf "%s %s-%d" $missing "launcher" $i }}{{ end }}{{ end -}}
{{- range $s := nomadService "alice-pi-worker-ssh-0" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "1/" .) true }}{{ end }}{{ end }}{{ end -}}
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
    task "sshkey" {
      driver = "raw_exec"
      lifecycle {
        hook = "prestart"
      }
      config {
        args    = ["nomad-sshkey"]
        command = "/usr/local/bin/jobshift"
      }
      resources {
        cpu    = 20
        memory = 32
      }
      identity {
        name = "default"
        env  = true
      }
    }
    task "main" {
      driver      = "raw_exec"
      kill_signal = "SIGTERM"
      config {
        args    = ["$${NOMAD_SECRETS_DIR}/jobshift-sshemu.sh", "--idle"]
        command = "sh"
      }
      env {
        CUDA_VISIBLE_DEVICES = ""
        JOBSHIFT_SSH_KEY     = "$${NOMAD_SECRETS_DIR}/jobshift-ssh-key"
      }
      resources {
        cpu = 200
      }
      template {
        destination = "local/jobshift.env"
        data        = <<EOT
{{- $h := "" -}}{{- $all := nomadService "alice-pi-launcher-ssh-0" -}}{{- range $i := loop 1 -}}{{- range $all -}}{{- if and (eq .JobID (env "NOMAD_JOB_ID")) (.Tags | contains (printf "idx-%d" $i)) -}}{{- if ne $h "" }}{{ $h = printf "%s," $h }}{{ end -}}{{- $h = printf "%s%s:%d" $h .Address .Port -}}{{- end -}}{{- end -}}{{- end }}
JS_HOSTS_LAUNCHER={{ $h }}
{{- $h := "" -}}{{- $all := nomadService "alice-pi-worker-ssh-0" -}}{{- range $i := loop 2 -}}{{- range $all -}}{{- if and (eq .JobID (env "NOMAD_JOB_ID")) (.Tags | contains (printf "idx-%d" $i)) -}}{{- if ne $h "" }}{{ $h = printf "%s," $h }}{{ end -}}{{- $h = printf "%s%s:%d" $h .Address .Port -}}{{- end -}}{{- end -}}{{- end }}
JS_HOSTS_WORKER={{ $h }}
JS_ROLE=worker
JS_INDEX={{ env "NOMAD_ALLOC_INDEX" }}
EOT
        change_mode = "noop"
        once        = true
        env         = true
      }
      template {
        destination = "secrets/jobshift-sshemu.sh"
        data        = "{{ base64Decode \"IyBqb2JzaGlmdCBzc2ggZW11bGF0aW9uOiB3aGF0IE9wZW5QQUkncyBzc2ggcnVudGltZSBwbHVnaW4gYW5kCiMgbXBpLW9wZXJhdG9yJ3MgcG9kcyBnYXZlIGV2ZXJ5IHRhc2ssIHJlYnVpbHQgd2l0aG91dCByb290IGFuZCB3aXRob3V0CiMgdG91Y2hpbmcgdGhlIHVzZXIncyB+Ly5zc2g6CiMgICAtIGFuIHNzaGQgb2YgdGhlIHRhc2sncyBvd24gb24gaXRzIGBzc2hgIHBvcnQsIGFjY2VwdGluZyB0aGUgam9iJ3Mga2V5CiMgICAgIChhbmQgdGhlIHVzZXJzc2ggcHVibGljIGtleXMpLCB3aXRoIGEgaG9zdCBrZXkgbWFkZSBoZXJlOwojICAgLSBhbiBzc2ggY2xpZW50IGNvbmZpZyB3aG9zZSBIb3N0IGVudHJpZXMgbWFwIGV2ZXJ5IHBlZXIncyBhbGlhcwojICAgICAoPHJvbGU+LTxpPiwgb3IgdGhlIE1QSUpvYiBwb2QgaG9zdCBuYW1lcykgdG8gaXRzIGFkZHJlc3MgYW5kIHBvcnQsCiMgICAgIHVzZWQgdGhyb3VnaCBhbiBgc3NoYCBlYXJseSBvbiBQQVRILCBzbyBgc3NoIHdvcmtlci0wYCwgbXBpcnVuIGFuZAojICAgICBob3Jvdm9kcnVuIHJlYWNoIHRoZSBwZWVycyB1bmNoYW5nZWQ7CiMgICAtIGZvciBhbiBNUElKb2IgdGFzaywgdGhlIGhvc3RmaWxlIChhbmQga3ViZXhlYy5zaCkgaW4gdGhlIG1waSBkaXI7CiMgICAtIHNzaGJhcnJpZXI6IHRoZSBjb21tYW5kIHN0YXJ0cyBvbmNlIGV2ZXJ5IHBlZXIncyBzc2hkIGFuc3dlcnMuCiMgVGhlbiBpdCBleGVjcyB0aGUgY29tbWFuZCAob3IsIHdpdGggLS1pZGxlLCBydW5zIHRoZSBzc2hkIGluIHRoZQojIGZvcmVncm91bmQ6IGFuIE1QSUpvYiB3b3JrZXIgd2hvc2Ugb3duIGNvbW1hbmQgd2FzIGFuIHNzaGQpLgojCiMgVXNhZ2U6IHNoIHNzaGVtdS5zaCBbLS1pZGxlXSBbLS1dIGNvbW1hbmQgW2FyZ3MuLi5dCiMgRW52aXJvbm1lbnQgKHNlZSBkcml2ZXJzL3NzaGVtdSBhbmQgdHJhbnNsYXRlL2NvbnRyYWN0L3NzaC5nbyk6CiMgICBKT0JTSElGVF9TU0hfSE9TVFMgICAiPGFkZHI+IDxwb3J0PiA8YWxpYXM+Li4uIiwgZW50cmllcyBqb2luZWQgYnkgJywnCiMgICBKT0JTSElGVF9TU0hfU0VMRiAgICB0aGlzIHRhc2sncyBmaXJzdCBhbGlhcwojICAgSk9CU0hJRlRfU1NIX0tFWSAgICAgdGhlIGpvYidzIHByaXZhdGUga2V5IGZpbGUgKGEgc2VjcmV0OyByZWFkIG9ubHkpCiMgICBKT0JTSElGVF9TU0hfRElSICAgICB3aGVyZSB0aGlzIHRhc2sncyBzc2hkIGFuZCBjbGllbnQgZmlsZXMgZ28sIGluIGEKIyAgICAgICAgICAgICAgICAgICAgICAgIGRpcmVjdG9yeSBubyBvdGhlciB1c2VyIGNhbiB3cml0ZSAoIiIgPSBhIG5ldwojICAgICAgICAgICAgICAgICAgICAgICAgZGlyZWN0b3J5IHVuZGVyICRUTVBESVIgaWYgdGhhdCBpcyBzbywgZWxzZSAvdG1wKQojICAgSk9CU0hJRlRfU1NIX1VTRVJLRVlTICBleHRyYSBhdXRob3JpemVkIHB1YmxpYyBrZXlzLCBvbmUgcGVyIGxpbmUKIyAgIEpPQlNISUZUX1NTSF9CQVJSSUVSIHNlY29uZHMgdG8gd2FpdCBmb3IgZXZlcnkgcGVlciAoIiIgPSBubyBiYXJyaWVyKQojICAgSk9CU0hJRlRfTVBJX0RJUiwgSk9CU0hJRlRfTVBJX0hPU1RGSUxFICBob3N0ZmlsZSBsaW5lcyBqb2luZWQgYnkgJywnCiMgICBKT0JTSElGVF9NUElSVU4gICAgICBhIHByb2dyYW0gcnVuIGFzIG1waXJ1bi9tcGlleGVjL29ydGVydW4gKCIiID0gbm9uZSkKIyBFeGl0IGNvZGVzOiAyNDkgYmFycmllciB0aW1lb3V0IChPcGVuUEFJJ3MgY29kZSksIDEgc2V0dXAgZmFpbHVyZS4KCnNldCAtdQp1bWFzayAwNzcKCmZhaWwoKSB7CglwcmludGYgJ2pvYnNoaWZ0IHNzaCBlbXVsYXRpb246ICVzXG4nICIkKiIgPiYyCgltcGlfcmVsZWFzZQoJZXhpdCAxCn0KCiMgVGhlIE1QSSBkaXJlY3RvcnkgbGl2ZXMgYXMgbG9uZyBhcyBhIHRhc2sgdGhhdCB1c2VzIGl0OiBlYWNoIHRhc2sgaG9sZHMKIyBhIG1hcmtlciBpbiBpdCwgYW5kIHRoZSBsYXN0IG9uZSB0byBlbmQgcmVtb3ZlcyB0aGUgZGlyZWN0b3J5IChzZXZlcmFsCiMgdGFza3Mgb2YgYSBqb2IgbWF5IHNoYXJlIGl0IG9uIG9uZSBob3N0LCBlLmcuIE5vbWFkJ3MgL3RtcCBwYXRoKS4KbWFya2VyPScnCm1waV9yZWxlYXNlKCkgewoJWyAtbiAiJG1hcmtlciIgXSB8fCByZXR1cm4gMAoJcm0gLWYgIiRtYXJrZXIiCgltYXJrZXI9JycKCWZvciBtIGluICIkbWRpciIvLnRhc2suKjsgZG8KCQlbIC1lICIkbSIgXSAmJiByZXR1cm4gMAoJZG9uZQoJcm0gLXJmICIkbWRpciIKfQoKIyBvd25fZGlyIG1ha2VzIERJUiB0aGlzIHVzZXIncyBwcml2YXRlIGRpcmVjdG9yeSwgb3IgcmVmdXNlcyBpdC4gT24gYQojIHNoYXJlZCBtYWNoaW5lIGEgcGF0aCBvdGhlcnMgY2FuIHByZWRpY3QgKE5vbWFkJ3Mgam9ic2hpZnQtbXBpLTxqb2I+KSBtYXkKIyBoYXZlIGJlZW4gbWFkZSBieSBhbm90aGVyIHVzZXIsIHdobyBjb3VsZCB0aGVuIHN3YXAgdGhlIGZpbGVzIHRoaXMgdGFzawojIHJ1bnMgKGt1YmV4ZWMuc2gsIGJpbi9zc2gpOiBESVIgbXVzdCBiZSBtYWRlIGZyZXNoIGhlcmUsIG9yIGJlIGEgcmVhbAojIGRpcmVjdG9yeSBvZiB0aGlzIHVzZXIncyB0aGF0IG5vYm9keSBlbHNlIGNhbiB3cml0ZSAob25lIHRoYXQgYW5vdGhlcgojIHRhc2sgb2YgdGhpcyBqb2IgbWFkZSkuIEEgZGlyZWN0b3J5IG9mIG91cnMgaW4gYSBzdGlja3kgL3RtcCBjYW5ub3QgYmUKIyByZW5hbWVkIG9yIHJlcGxhY2VkIGJ5IGFub3RoZXIgdXNlciBhZnRlcndhcmRzLgpvd25fZGlyKCkgewoJZD0kMQoJbWtkaXIgIiRkIiAyPi9kZXYvbnVsbAoJeyBbICEgLUwgIiRkIiBdICYmIFsgLWQgIiRkIiBdOyB9IHx8IGZhaWwgIiRkIGlzIG5vdCBhIGRpcmVjdG9yeSAoYSBsaW5rIG9yIGEgZmlsZSBpcyBpbiB0aGUgd2F5KTogcmVmdXNpbmcgaXQiCgkjIHNoZWxsY2hlY2sgZGlzYWJsZT1TQzIwNDYgIyBscydzIGZpZWxkcywgc3BsaXQgb24gcHVycG9zZQoJc2V0IC0tICQobHMgLWxkICIkZCIpCglbIC1PICIkZCIgXSB8fCBmYWlsICIkZCBiZWxvbmdzIHRvIGFub3RoZXIgdXNlciAoJDMpOiByZWZ1c2luZyBpdDsgcmVtb3ZlIGl0IG9yIG5hbWUgYW5vdGhlciBkaXJlY3RvcnkiCgljYXNlICQxIGluCgk/Pz8/P3cqIHwgPz8/Pz8/Pz93KikgZmFpbCAiJGQgaXMgd3JpdGFibGUgYnkgb3RoZXIgdXNlcnMgKCQxKTogcmVmdXNpbmcgaXQiIDs7Cgllc2FjCgljaG1vZCA3MDAgIiRkIiB8fCBmYWlsICJjYW5ub3QgcHJvdGVjdCAkZCIKfQoKIyBzYWZlX2RpciBESVI6IG5vIG90aGVyIHVzZXIgY2FuIHJlbmFtZSBESVIncyBlbnRyaWVzIGF3YXkgYW5kIHB1dCB0aGVpcgojIG93biBpbiB0aGVpciBwbGFjZTogRElSIGJlbG9uZ3MgdG8gcm9vdCBvciB0aGlzIHVzZXIgYW5kIGlzIHdyaXRhYmxlIGJ5CiMgbm9ib2R5IGVsc2UsIG9yIGlzIHN0aWNreSAoL3RtcCkuIE5vbWFkJ3MgdGFzayBkaXJlY3RvcmllcyBhcmUgbmVpdGhlcgojICgwNzc3LCBvd25lZCBieSBub2JvZHk6IE5vbWFkIHYxLjExLjMgY2xpZW50L2FsbG9jZGlyKS4Kc2FmZV9kaXIoKSB7CgkjIHNoZWxsY2hlY2sgZGlzYWJsZT1TQzIwNDYgIyBscydzIGZpZWxkcywgc3BsaXQgb24gcHVycG9zZQoJc2V0IC0tICQobHMgLWxkbiAiJDEiKQoJWyAiJDMiID0gMCBdIHx8IFsgIiQzIiA9ICIkKGlkIC11KSIgXSB8fCByZXR1cm4gMQoJY2FzZSAkMSBpbgoJPz8/Pz8/Pz8/W3RUXSopIHJldHVybiAwIDs7Cgk/Pz8/P3cqIHwgPz8/Pz8/Pz93KikgcmV0dXJuIDEgOzsKCWVzYWMKCXJldHVybiAwCn0KCmlkbGU9MAppZiBbICIkezE6LX0iID0gLS1pZGxlIF07IHRoZW4KCWlkbGU9MQoJc2hpZnQKZmkKaWYgWyAiJHsxOi19IiA9IC0tIF07IHRoZW4KCXNoaWZ0CmZpCgpob3N0cz0ke0pPQlNISUZUX1NTSF9IT1NUUzo/fQptZT0ke0pPQlNISUZUX1NTSF9TRUxGOj99CmtleT0ke0pPQlNISUZUX1NTSF9LRVk6P30KZGlyPSR7Sk9CU0hJRlRfU1NIX0RJUjotfQptYWRlPScnCmlmIFsgLXogIiRkaXIiIF07IHRoZW4KCSMgYSBmcmVzaCBkaXJlY3Rvcnkgb2YgYSBuYW1lIG5vYm9keSBjYW4gcHJlZGljdCwgdW5kZXIgJFRNUERJUiBpZiBubwoJIyBvbmUgZWxzZSBjYW4gcmVwbGFjZSB3aGF0IGlzIGluIGl0LCBlbHNlIHVuZGVyIC90bXAKCWJhc2U9JHtUTVBESVI6LS90bXB9CglzYWZlX2RpciAiJGJhc2UiIHx8IGJhc2U9L3RtcAoJZGlyPSQobWt0ZW1wIC1kICIkYmFzZS9qb2JzaGlmdC1zc2guWFhYWFhYIikgfHwgZmFpbCAiY2Fubm90IG1ha2UgYSBkaXJlY3RvcnkgdW5kZXIgJGJhc2UiCgltYWRlPSRkaXIKZmkKc2FmZV9kaXIgIiQoZGlybmFtZSAiJGRpciIpIiB8fCBmYWlsICIkKGRpcm5hbWUgIiRkaXIiKSBjYW4gYmUgd3JpdHRlbiBieSBvdGhlciB1c2Vycywgd2hvIGNvdWxkIHJlcGxhY2UgJGRpcjogbmFtZSBhIGRpcmVjdG9yeSB1bmRlciBvbmUgb2YgeW91cnMiCm93bl9kaXIgIiRkaXIiCm93bl9kaXIgIiRkaXIvYmluIgoKc3NoZD0ke0pPQlNISUZUX1NTSEQ6LX0KaWYgWyAteiAiJHNzaGQiIF07IHRoZW4KCXNzaGQ9JChjb21tYW5kIC12IHNzaGQpIHx8IHNzaGQ9L3Vzci9zYmluL3NzaGQKZmkKc3NoPSQoY29tbWFuZCAtdiBzc2gpIHx8IGZhaWwgInNzaCBub3QgZm91bmQgb24gUEFUSCAoaW5zdGFsbCBvcGVuc3NoLWNsaWVudCkiCmNhdD0kKGNvbW1hbmQgLXYgY2F0KSB8fCBmYWlsICJjYXQgbm90IGZvdW5kIG9uIFBBVEgiCmtleWdlbj0kKGNvbW1hbmQgLXYgc3NoLWtleWdlbikgfHwgZmFpbCAic3NoLWtleWdlbiBub3QgZm91bmQgb24gUEFUSCAoaW5zdGFsbCBvcGVuc3NoLWNsaWVudCkiClsgLXggIiRzc2hkIiBdIHx8IGZhaWwgInNzaGQgbm90IGZvdW5kIChpbnN0YWxsIG9wZW5zc2gtc2VydmVyLCBvciBzZXQgSk9CU0hJRlRfU1NIRCkiCnVzZXI9JChpZCAtdW4pIHx8IGZhaWwgImNhbm5vdCB0ZWxsIHRoZSB1c2VyIG5hbWUiCgojIHEgcXVvdGVzIGEgdmFsdWUgZm9yIHNzaF9jb25maWcgLyBzc2hkX2NvbmZpZyAoIi4uLiI7ICclJyBkb3VibGVkIGZvciB0aGUKIyB0b2tlbnMgc3NoZCBleHBhbmRzKS4KcSgpIHsgcHJpbnRmICciJXMiJyAiJChwcmludGYgJyVzJyAiJDEiIHwgc2VkICdzLyUvJSUvZycpIjsgfQojIHNxIHF1b3RlcyBhIHZhbHVlIGZvciBzaC4Kc3EoKSB7IHByaW50ZiAiJyVzJyIgIiQocHJpbnRmICclcycgIiQxIiB8IHNlZCAicy8nLydcXFxcJycvZyIpIjsgfQoKIyBUaGUga2V5IGlzIHVzZWQgd2hlcmUgdGhlIHRhcmdldCBwdXQgaXQgKDA2MDApOiBubyBjb3B5IG9mIGEgc2VjcmV0LiBJdHMKIyBwdWJsaWMgaGFsZiBpcyB3aGF0IHRoZSBzc2hkIGF1dGhvcml6ZXMsIHNvIGl0IG11c3QgYmUgdGhlIHRhcmdldCdzIChvcgojIHRoaXMgdXNlcidzKSBmaWxlLCBub3Qgb25lIGFub3RoZXIgdXNlciBwdXQgYXQgaXRzIG5hbWUuCmtleV9vaygpIHsKCXsgWyAhIC1MICIkMSIgXSAmJiBbIC1mICIkMSIgXTsgfSB8fCByZXR1cm4gMQoJIyBzaGVsbGNoZWNrIGRpc2FibGU9U0MyMDQ2ICMgbHMncyBmaWVsZHMsIHNwbGl0IG9uIHB1cnBvc2UKCXNldCAtLSAkKGxzIC1sbiAiJDEiKQoJWyAiJDMiID0gMCBdIHx8IFsgIiQzIiA9ICIkKGlkIC11KSIgXQp9CmtleV9vayAiJGtleSIgfHwgZmFpbCAidGhlIGpvYiBrZXkgJGtleSBpcyBub3QgYSBmaWxlIG9mIHJvb3QncyBvciB0aGlzIHVzZXInczogcmVmdXNpbmcgaXQiCiIka2V5Z2VuIiAteSAtZiAiJGtleSIgPiIkZGlyL2lkLnB1YiIgfHwgZmFpbCAiY2Fubm90IHJlYWQgdGhlIGpvYiBrZXkgJGtleSIKewoJY2F0ICIkZGlyL2lkLnB1YiIKCWlmIFsgLW4gIiR7Sk9CU0hJRlRfU1NIX1VTRVJLRVlTOi19IiBdOyB0aGVuCgkJcHJpbnRmICclc1xuJyAiJEpPQlNISUZUX1NTSF9VU0VSS0VZUyIKCWZpCn0gPiIkZGlyL2F1dGhvcml6ZWRfa2V5cyIKcm0gLWYgIiRkaXIvaG9zdF9rZXkiICIkZGlyL2hvc3Rfa2V5LnB1YiIKIiRrZXlnZW4iIC1xIC10IGVkMjU1MTkgLU4gJycgLWYgIiRkaXIvaG9zdF9rZXkiIHx8IGZhaWwgImNhbm5vdCBtYWtlIGEgaG9zdCBrZXkiCgojIFRoZSBjbGllbnQgY29uZmlnOiBvbmUgSG9zdCBibG9jayBwZXIgcGVlciwgdGhlbiB0aGUgam9iLXdpZGUgc2V0dGluZ3MuCiMgKEEgZnVuY3Rpb24sIHNvIGBzZXQgLS1gIGxlYXZlcyB0aGUgY29tbWFuZCdzIGFyZ3VtZW50cyBhbG9uZS4pCmhvc3RfYmxvY2tzKCkgewoJb2xkX2lmcz0kSUZTCglJRlM9LAoJZm9yIGVudHJ5IGluICRob3N0czsgZG8KCQlJRlM9JyAnCgkJIyBzaGVsbGNoZWNrIGRpc2FibGU9U0MyMDg2ICMgdGhlIGVudHJ5IGlzIHNwbGl0IG9uIHB1cnBvc2UKCQlzZXQgLS0gJGVudHJ5CgkJSUZTPSwKCQlbICQjIC1nZSAzIF0gfHwgZmFpbCAiYmFkIGhvc3QgZW50cnkgJyRlbnRyeSciCgkJYT0kMSBwPSQyCgkJc2hpZnQgMgoJCSMgRXZlcnkgdmFsdWUgaXMgY2hlY2tlZCBiZWZvcmUgaXQgcmVhY2hlcyBzc2hfY29uZmlnICh0aGUgZ3JhbW1hcgoJCSMgb2YgdHJhbnNsYXRlL2NvbnRyYWN0J3MgdG9wb2xvZ3kgY2hlY2tzKTogYW4gYWRkcmVzcyBmcm9tIGEKCQkjIGZvcmdlZCB0b3BvbG9neSBjb3VsZCBjYXJyeSBhIG5ld2xpbmUgYW5kIGEgUHJveHlDb21tYW5kLgoJCWNhc2UgJGEgaW4gJycgfCAqWyFBLVphLXowLTkuOl8tXSopIGZhaWwgImJhZCBhZGRyZXNzIGluIGhvc3QgZW50cnkgJyRlbnRyeSciIDs7IGVzYWMKCQljYXNlICRwIGluICcnIHwgKlshMC05XSogfCAwKikgZmFpbCAiYmFkIHBvcnQgaW4gaG9zdCBlbnRyeSAnJGVudHJ5JyIgOzsgZXNhYwoJCVsgIiRwIiAtbGUgNjU1MzUgXSB8fCBmYWlsICJiYWQgcG9ydCBpbiBob3N0IGVudHJ5ICckZW50cnknIgoJCWZvciBuIGluICIkQCI7IGRvCgkJCWNhc2UgJG4gaW4gJycgfCAqWyFBLVphLXowLTkuXy1dKikgZmFpbCAiYmFkIGhvc3QgbmFtZSBpbiBob3N0IGVudHJ5ICckZW50cnknIiA7OyBlc2FjCgkJZG9uZQoJCUlGUz0nICcgIyAiJCoiIGpvaW5zIHdpdGggdGhlIGZpcnN0IGNoYXJhY3RlciBvZiBJRlMKCQlwcmludGYgJ0hvc3QgJXNcblx0SG9zdE5hbWUgJXNcblx0UG9ydCAlc1xuJyAiJCoiICIkKHEgIiRhIikiICIkcCIgPj4iJGRpci9zc2hfY29uZmlnIgoJCUlGUz0sCgkJYWxpYXNlcz0iJGFsaWFzZXMgJDEiCgkJZm9yIG4gaW4gIiRAIjsgZG8KCQkJaWYgWyAiJG4iID0gIiRtZSIgXTsgdGhlbgoJCQkJYWRkcj0kYSBwb3J0PSRwCgkJCWZpCgkJZG9uZQoJZG9uZQoJSUZTPSRvbGRfaWZzCn0KYWRkcj0nJyBwb3J0PScnIGFsaWFzZXM9JycKOiA+IiRkaXIvc3NoX2NvbmZpZyIKaG9zdF9ibG9ja3MKWyAtbiAiJHBvcnQiIF0gfHwgZmFpbCAidGhpcyB0YXNrICgkbWUpIGlzIG5vdCBpbiBKT0JTSElGVF9TU0hfSE9TVFMiCmNhdCA+PiIkZGlyL3NzaF9jb25maWciIDw8RU9GCkhvc3QgKgoJVXNlciAkdXNlcgoJSWRlbnRpdHlGaWxlICQocSAiJGtleSIpCglJZGVudGl0aWVzT25seSB5ZXMKCVN0cmljdEhvc3RLZXlDaGVja2luZyBubwoJVXNlcktub3duSG9zdHNGaWxlIC9kZXYvbnVsbAoJR2xvYmFsS25vd25Ib3N0c0ZpbGUgL2Rldi9udWxsCglMb2dMZXZlbCBFUlJPUgoJQmF0Y2hNb2RlIHllcwoJQ29ubmVjdGlvbkF0dGVtcHRzIDEwCkVPRgpwcmludGYgJyMhL2Jpbi9zaFxuZXhlYyAlcyAtRiAlcyAiJEAiXG4nICIkKHNxICIkc3NoIikiICIkKHNxICIkZGlyL3NzaF9jb25maWciKSIgPiIkZGlyL2Jpbi9zc2giCmNobW9kIDcwMCAiJGRpci9iaW4vc3NoIgojIEEgdGFyZ2V0IHRoYXQgbGF1bmNoZXMgTVBJIHJhbmtzIGl0c2VsZiAoU2x1cm0ncyBtcGkgPSAicG1peCIpIG5hbWVzIGl0cwojIG1waXJ1biBpbiBKT0JTSElGVF9NUElSVU46IHRoZSB1c2VyJ3MgbXBpcnVuIGxpbmUgcnVucyBpdCB1bmNoYW5nZWQuCmlmIFsgLW4gIiR7Sk9CU0hJRlRfTVBJUlVOOi19IiBdOyB0aGVuCglmb3IgbSBpbiBtcGlydW4gbXBpZXhlYyBvcnRlcnVuOyBkbwoJCXByaW50ZiAnIyEvYmluL3NoXG5KT0JTSElGVF9NUElSVU5fU0tJUD0lcyBleGVjIHNoICVzICIkQCJcbicgIiQoc3EgIiRkaXIvYmluIikiICIkKHNxICIkSk9CU0hJRlRfTVBJUlVOIikiID4iJGRpci9iaW4vJG0iCgkJY2htb2QgNzAwICIkZGlyL2Jpbi8kbSIKCWRvbmUKZmkKUEFUSD0kZGlyL2JpbjokUEFUSApleHBvcnQgUEFUSAoKIyBUaGUgc3NoZDoga2V5IGxvZ2lucyBvbmx5LCBmb3IgdGhpcyB1c2VyLCB3aXRoIHRoZSB0YXNrJ3Mgc2VhcmNoIHBhdGhzCiMgKGFuIHNzaCBzZXNzaW9uIHN0YXJ0cyB3aXRoIGEgZnJlc2ggZW52aXJvbm1lbnQ7IE9wZW5QQUkgY29waWVkIGl0cwojIHZhcmlhYmxlcyB0byAvZXRjL2Vudmlyb25tZW50IGZvciB0aGUgc2FtZSByZWFzb24pLgp7CglwcmludGYgJ1BvcnQgJXNcbkxpc3RlbkFkZHJlc3MgJXNcbicgIiRwb3J0IiAiJGFkZHIiCglwcmludGYgJ0hvc3RLZXkgJXNcblBpZEZpbGUgJXNcbicgIiQocSAiJGRpci9ob3N0X2tleSIpIiAiJChxICIkZGlyL3NzaGQucGlkIikiCgkjIFN0cmljdE1vZGVzIGNoZWNrcyBhbiBBdXRob3JpemVkS2V5c0ZpbGUncyBldmVyeSBwYXJlbnQgZGlyZWN0b3J5LAoJIyB3aGljaCBvbiBOb21hZCAoMDc3NykgYW5kIHVuZGVyIC90bXAgKDE3NzcpIGZhaWxzOiB0aGUga2V5cyBjb21lCgkjIGZyb20gYSBjb21tYW5kIGluc3RlYWQgKHJvb3QncyBjYXQsIHdoaWNoIHNzaGQgY2hlY2tzKSByZWFkaW5nIHRoZW0KCSMgaW4gdGhpcyBwcml2YXRlIGRpcmVjdG9yeSwgd2hpY2ggc2FmZV9wYXJlbnQga2VlcHMgaW4gcGxhY2UuCglwcmludGYgJ0F1dGhvcml6ZWRLZXlzRmlsZSBub25lXG5BdXRob3JpemVkS2V5c0NvbW1hbmQgJXMgJXNcbkF1dGhvcml6ZWRLZXlzQ29tbWFuZFVzZXIgJXNcbicgIiRjYXQiICIkKHEgIiRkaXIvYXV0aG9yaXplZF9rZXlzIikiICIkdXNlciIKCXByaW50ZiAnU3RyaWN0TW9kZXMgeWVzXG5Vc2VQQU0gbm9cblBhc3N3b3JkQXV0aGVudGljYXRpb24gbm9cbktiZEludGVyYWN0aXZlQXV0aGVudGljYXRpb24gbm9cbicKCXByaW50ZiAnUHVia2V5QXV0aGVudGljYXRpb24geWVzXG5QZXJtaXRSb290TG9naW4gcHJvaGliaXQtcGFzc3dvcmRcbkFsbG93VXNlcnMgJXNcbicgIiR1c2VyIgoJcHJpbnRmICdQcmludE1vdGQgbm9cblgxMUZvcndhcmRpbmcgbm9cbk1heFN0YXJ0dXBzIDEwMDozMDoyMDBcbk1heFNlc3Npb25zIDEwMFxuJwoJZm9yIHYgaW4gUEFUSCBMRF9MSUJSQVJZX1BBVEggUFlUSE9OUEFUSCBPTVBJX0FMTE9XX1JVTl9BU19ST09UIE9NUElfQUxMT1dfUlVOX0FTX1JPT1RfQ09ORklSTTsgZG8KCQlldmFsICJ2YWw9XCR7JHYtfSIKCQkjIHNoZWxsY2hlY2sgZGlzYWJsZT1TQzIxNTQgIyB2YWwgaXMgc2V0IGJ5IHRoZSBldmFsCgkJY2FzZSAkdmFsIGluCgkJJycgfCAqJyInKiB8IConJScqKSA7OwoJCSopIHByaW50ZiAnU2V0RW52ICIlcz0lcyJcbicgIiR2IiAiJHZhbCIgOzsKCQllc2FjCglkb25lCn0gPiIkZGlyL3NzaGRfY29uZmlnIgppZiBbICIkKGlkIC11KSIgPSAwIF07IHRoZW4KCW1rZGlyIC1wIC9ydW4vc3NoZCAyPi9kZXYvbnVsbCAjIHByaXZpbGVnZSBzZXBhcmF0aW9uIGRpcmVjdG9yeQpmaQoKIyBFdmVyeSBNUElKb2IgdGFzaydzIGZpbGVzLCBhcyB0aGUgb3BlcmF0b3IncyBDb25maWdNYXAgaGVsZCB0aGVtLgppZiBbIC1uICIke0pPQlNISUZUX01QSV9IT1NURklMRTotfSIgXTsgdGhlbgoJbWRpcj0ke0pPQlNISUZUX01QSV9ESVI6P30KCSMgcHJpdmF0ZTogb25seSB0aGlzIHVzZXIncyB0YXNrcyByZWFkIGl0IChTbHVybSBtYWRlIGl0IDA3MDAgYWxyZWFkeSkKCW93bl9kaXIgIiRtZGlyIgoJbWFya2VyPSQobWt0ZW1wICIkbWRpci8udGFzay4kbWUuWFhYWFhYIikgfHwgZmFpbCAiY2Fubm90IHdyaXRlIGluICRtZGlyIgoJIyBzaGVsbGNoZWNrIGRpc2FibGU9U0MyMDE1ICMgZmFpbCBleGl0cwoJcHJpbnRmICclc1xuJyAiJEpPQlNISUZUX01QSV9IT1NURklMRSIgfCB0ciAnLCcgJ1xuJyA+IiRtZGlyL2hvc3RmaWxlLnRtcC4kJCIgJiYgbXYgLWYgIiRtZGlyL2hvc3RmaWxlLnRtcC4kJCIgIiRtZGlyL2hvc3RmaWxlIiB8fAoJCWZhaWwgImNhbm5vdCB3cml0ZSAkbWRpci9ob3N0ZmlsZSIKCSMga3ViZXhlYy5zaCB3YXMgYGt1YmVjdGwgZXhlYyA8cG9kPiAtLSAvYmluL3NoIC1jICIkKiJgOyBzc2ggcnVucyB0aGUKCSMgc2FtZSBjb21tYW5kIGxpbmUgb24gdGhlIHNhbWUgcG9kLiBUaGUgc2FtZSB0ZXh0IGluIGV2ZXJ5IHRhc2sgKHRhc2tzCgkjIG9uIG9uZSBob3N0IHNoYXJlIHRoZSBkaXJlY3RvcnkpOiB0aGUgc3NoIG9uIFBBVEggaXMgZWFjaCB0YXNrJ3Mgb3duLgoJIyBzaGVsbGNoZWNrIGRpc2FibGU9U0MyMDE1ICMgZmFpbCBleGl0cwoJcHJpbnRmICcjIS9iaW4vc2hcbmV4ZWMgc3NoICIkQCJcbicgPiIkbWRpci9rdWJleGVjLnNoLnRtcC4kJCIgJiYKCQljaG1vZCA3NTUgIiRtZGlyL2t1YmV4ZWMuc2gudG1wLiQkIiAmJiBtdiAtZiAiJG1kaXIva3ViZXhlYy5zaC50bXAuJCQiICIkbWRpci9rdWJleGVjLnNoIiB8fAoJCWZhaWwgImNhbm5vdCB3cml0ZSAkbWRpci9rdWJleGVjLnNoIgoJY2htb2QgNjQ0ICIkbWRpci9ob3N0ZmlsZSIKZmkKCiIkc3NoZCIgLXQgLWYgIiRkaXIvc3NoZF9jb25maWciIHx8IGZhaWwgInNzaGQgcmVqZWN0cyBpdHMgY29uZmlndXJhdGlvbiAkZGlyL3NzaGRfY29uZmlnIgppZiBbICIkaWRsZSIgPSAxIF07IHRoZW4KCWlmIFsgLXogIiRtYXJrZXIiIF07IHRoZW4KCQlleGVjICIkc3NoZCIgLUQgLWUgLWYgIiRkaXIvc3NoZF9jb25maWciCglmaQoJIyB0aGUgc3NoZCBpbiB0aGUgZm9yZWdyb3VuZCwgYnV0IHRoaXMgc2hlbGwgc3RheXMgdG8gcmVsZWFzZSB0aGUKCSMgTVBJIGRpcmVjdG9yeSB3aGVuIHRoZSB0YXJnZXQgc3RvcHMgdGhlIHRhc2sKCSMgdGhlIHRyYXAgaXMgc2V0IGJlZm9yZSB0aGUgZm9yayBhbmQgYSBzdG9wIHRoYXQgY2FtZSBiZWZvcmUgJHNwaWQKCSMgd2FzIGtub3duIGlzIHBhc3NlZCBvbiBhZnRlcjogbm8gc3RvcCBpcyBsb3N0IChub3Iga2lsbHMgdGhpcyBzaGVsbAoJIyBiZWZvcmUgaXQgcmVsZWFzZWQgdGhlIE1QSSBkaXJlY3RvcnkpCglzdG9wPTAgc3BpZD0KCXRyYXAgJ3N0b3A9MTsgWyAtbiAiJHNwaWQiIF0gJiYga2lsbCAiJHNwaWQiIDI+L2Rldi9udWxsJyBURVJNIElOVCBIVVAKCSIkc3NoZCIgLUQgLWUgLWYgIiRkaXIvc3NoZF9jb25maWciIDwvZGV2L251bGwgJgoJc3BpZD0kIQoJWyAiJHN0b3AiID0gMSBdICYmIGtpbGwgIiRzcGlkIiAyPi9kZXYvbnVsbAoJd2FpdCAiJHNwaWQiCglyYz0kPwoJa2lsbCAiJHNwaWQiIDI+L2Rldi9udWxsICYmIHdhaXQgIiRzcGlkIgoJbXBpX3JlbGVhc2UKCVsgLXogIiRtYWRlIiBdIHx8IHJtIC1yZiAiJG1hZGUiCglleGl0ICIkcmMiCmZpCiMgVGhlIHNzaGQgbGl2ZXMgYXMgbG9uZyBhcyB0aGUgY29tbWFuZDogYSB3YXRjaGVyIHN0b3BzIGl0IG9uY2UgdGhlCiMgcHJvY2VzcyB0aGF0IGJlY29tZXMgdGhlIGNvbW1hbmQgKHRoaXMgc2hlbGwncyBwaWQpIGlzIGdvbmUsIHdoYXRldmVyCiMgdGhlIHRhcmdldCdzIG93biBjbGVhbi11cCBkb2VzLgptYWluPSQkCigKCSIkc3NoZCIgLUQgLWUgLWYgIiRkaXIvc3NoZF9jb25maWciIDI+PiIkZGlyL3NzaGQubG9nIiA8L2Rldi9udWxsICYKCXNwaWQ9JCEKCSMgYSBzdG9wIHNpZ25hbCB0byB0aGUgdGFzaydzIHByb2Nlc3MgZ3JvdXAgZW5kcyB0aGUgY29tbWFuZCwgbm90IHRoZQoJIyB3YXRjaGVyOiBpdCBzdGlsbCBzdG9wcyB0aGUgc3NoZCBhbmQgcmVsZWFzZXMgdGhlIE1QSSBkaXJlY3RvcnkKCSMgKHNldCBhZnRlciB0aGUgc3NoZCBzdGFydGVkOiBhbiBpZ25vcmVkIHNpZ25hbCBzdGF5cyBpZ25vcmVkIGluIGl0KQoJdHJhcCAnJyBURVJNIElOVCBIVVAKCXdoaWxlIGtpbGwgLTAgIiRtYWluIiAyPi9kZXYvbnVsbCAmJiBraWxsIC0wICIkc3BpZCIgMj4vZGV2L251bGw7IGRvCgkJc2xlZXAgMQoJZG9uZQoJa2lsbCAiJHNwaWQiIDI+L2Rldi9udWxsCgltcGlfcmVsZWFzZQoJWyAteiAiJG1hZGUiIF0gfHwgcm0gLXJmICIkbWFkZSIKKSA8L2Rldi9udWxsID4vZGV2L251bGwgMj4mMSAmCgppZiBbIC1uICIke0pPQlNISUZUX1NTSF9CQVJSSUVSOi19IiBdOyB0aGVuCgllbmQ9JCgoJChkYXRlICslcykgKyBKT0JTSElGVF9TU0hfQkFSUklFUikpCglmb3IgaCBpbiAkYWxpYXNlczsgZG8KCQl1bnRpbCBzc2ggLW8gQ29ubmVjdFRpbWVvdXQ9MiAtbyBDb25uZWN0aW9uQXR0ZW1wdHM9MSAiJGgiIHRydWUgPC9kZXYvbnVsbCAyPi9kZXYvbnVsbDsgZG8KCQkJaWYgWyAiJChkYXRlICslcykiIC1nZSAiJGVuZCIgXTsgdGhlbgoJCQkJcHJpbnRmICdqb2JzaGlmdCBzc2ggZW11bGF0aW9uOiBzc2hiYXJyaWVyOiAlcyBkb2VzIG5vdCBhbnN3ZXIgYWZ0ZXIgJXNzXG4nICIkaCIgIiRKT0JTSElGVF9TU0hfQkFSUklFUiIgPiYyCgkJCQltcGlfcmVsZWFzZQoJCQkJZXhpdCAyNDkKCQkJZmkKCQkJc2xlZXAgMQoJCWRvbmUKCWRvbmUKZmkKIyBVbmRlciBTbHVybSwgT3Blbk1QSSdzIGFuZCBIeWRyYSdzIGxhdW5jaGVycyB3b3VsZCBzZWUgdGhlIGFsbG9jYXRpb24KIyBhbmQgc3RhcnQgdGhlaXIgZGFlbW9ucyB3aXRoIHNydW4gb24gU2x1cm0ncyBub2RlcyBpbnN0ZWFkIG9mIHRoZSBwZWVycwojIHRoZSBjb21tYW5kIG5hbWVzOyBvbiB0aGUgc291cmNlIHBsYXRmb3JtIHRoZXkgdXNlZCBzc2ggYW5kIHRoZQojIGhvc3RmaWxlLiAoQSB1c2VyJ3Mgb3duIHNldHRpbmcgd2lucy4pCmlmIFsgLW4gIiR7U0xVUk1fSk9CX0lEOi19IiBdOyB0aGVuCglPTVBJX01DQV9wbG09JHtPTVBJX01DQV9wbG06LXJzaH0KCU9NUElfTUNBX3Jhcz0ke09NUElfTUNBX3JhczotXnNsdXJtfQoJSV9NUElfSFlEUkFfQk9PVFNUUkFQPSR7SV9NUElfSFlEUkFfQk9PVFNUUkFQOi1zc2h9CglIWURSQV9MQVVOQ0hFUj0ke0hZRFJBX0xBVU5DSEVSOi1zc2h9CglleHBvcnQgT01QSV9NQ0FfcGxtIE9NUElfTUNBX3JhcyBJX01QSV9IWURSQV9CT09UU1RSQVAgSFlEUkFfTEFVTkNIRVIKZmkKWyAkIyAtZ3QgMCBdIHx8IHsgbXBpX3JlbGVhc2U7IGV4aXQgMDsgfQpbIC1uICIkbWFya2VyIiBdIHx8IGV4ZWMgIiRAIgojIEEgdGFzayBob2xkaW5nIHRoZSBNUEkgZGlyZWN0b3J5IHJ1bnMgaXRzIGNvbW1hbmQgYXMgYSBjaGlsZCwgc28gdGhhdCBpdAojIGNhbiByZWxlYXNlIHRoZSBkaXJlY3Rvcnkgd2hlbiB0aGUgY29tbWFuZCBlbmRzOiBhbiBleGVjJ2QgY29tbWFuZCdzCiMgZW5kIGlzIHRoZSB0YXNrJ3MsIGFuZCB0aGUgdGFyZ2V0IGtpbGxzIHdoYXQgaXMgbGVmdCBhdCBvbmNlIChOb21hZCdzCiMgZXhlY3V0b3IgZG9lcykuIFN0b3Agc2lnbmFscyBhcmUgcGFzc2VkIG9uOyBzdGRpbiBzdGF5cyB0aGUgdGFzaydzLgojIChUaGUgdHJhcCBpcyBzZXQgYmVmb3JlIHRoZSBmb3JrLCBhbmQgYSBzdG9wIHRoYXQgY2FtZSBiZWZvcmUgJGNwaWQgd2FzCiMga25vd24gaXMgcGFzc2VkIG9uIGFmdGVyIGl0LikKc3RvcD0wIGNwaWQ9CnRyYXAgJ3N0b3A9MTsgWyAtbiAiJGNwaWQiIF0gJiYga2lsbCAtVEVSTSAiJGNwaWQiIDI+L2Rldi9udWxsJyBURVJNIElOVCBIVVAKZXhlYyAzPCYwCiIkQCIgPCYzIDM8Ji0gJgpjcGlkPSQhCmV4ZWMgMzwmLQpbICIkc3RvcCIgPSAxIF0gJiYga2lsbCAtVEVSTSAiJGNwaWQiIDI+L2Rldi9udWxsCndhaXQgIiRjcGlkIgpyYz0kPwp3aGlsZSBraWxsIC0wICIkY3BpZCIgMj4vZGV2L251bGw7IGRvCgl3YWl0ICIkY3BpZCIKCXJjPSQ/CmRvbmUKbXBpX3JlbGVhc2UKZXhpdCAiJHJjIgo=\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0755"
      }
      template {
        destination = "secrets/jobshift-ssh-key"
        data        = "{{ with nomadVar \"nomad/jobs/alice~pi\" }}{{ index . \"jobshift_ssh_key\" }}{{ end }}"
        change_mode = "noop"
        once        = true
        perms       = "0600"
      }
    }
    task "finish" {
      driver = "raw_exec"
      lifecycle {
        hook = "poststop"
      }
      config {
        args    = ["nomad-finish"]
        command = "/usr/local/bin/jobshift"
      }
      resources {
        cpu    = 50
        memory = 64
      }
      identity {
        name = "default"
        env  = true
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
      jobshift_judges = "poststop finisher"
      jobshift_role   = "worker"
    }
    service {
      name     = "alice-pi-worker-ssh-0"
      tags     = ["idx-$${NOMAD_ALLOC_INDEX}"]
      port     = "ssh_0"
      provider = "nomad"
    }
  }
  meta {
    jobshift_attempt = "0"
    jobshift_format  = "mpijob"
    jobshift_name    = "pi"
    jobshift_policy  = "{\"name\":\"pi\",\"kind\":\"mpi\",\"format\":\"mpijob\",\"version\":\"kubeflow.org/v2beta1\",\"completion\":{\"kind\":\"mpi\",\"pos\":{}},\"retry\":{\"jobRetryCount\":0,\"gangAllocation\":false,\"backoffLimit\":3,\"cleanPodPolicy\":\"Running\",\"pos\":{}},\"roles\":[{\"name\":\"launcher\",\"replicaType\":\"launcher\",\"instances\":1,\"minFailed\":null,\"minSucceeded\":null,\"restartPolicy\":\"OnFailure\"},{\"name\":\"worker\",\"replicaType\":\"worker\",\"instances\":2,\"minFailed\":null,\"minSucceeded\":null,\"restartPolicy\":\"Never\"}]}"
    jobshift_shape   = "unwatched: for nomad job run; jobshift convert -watched writes what jobshift run submits"
    jobshift_source  = "mpi_v2beta1.yaml"
    jobshift_user    = "alice"
    jobshift_version = "0.1.0-dev"
  }
}
