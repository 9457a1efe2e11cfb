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
        JOBSHIFT_SSH_DIR     = "$${NOMAD_SECRETS_DIR}/jobshift-ssh"
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
        data        = "{{ base64Decode \"IyBqb2JzaGlmdCBzc2ggZW11bGF0aW9uOiB3aGF0IE9wZW5QQUkncyBzc2ggcnVudGltZSBwbHVnaW4gYW5kCiMgbXBpLW9wZXJhdG9yJ3MgcG9kcyBnYXZlIGV2ZXJ5IHRhc2ssIHJlYnVpbHQgd2l0aG91dCByb290IGFuZCB3aXRob3V0CiMgdG91Y2hpbmcgdGhlIHVzZXIncyB+Ly5zc2g6CiMgICAtIGFuIHNzaGQgb2YgdGhlIHRhc2sncyBvd24gb24gaXRzIGBzc2hgIHBvcnQsIGFjY2VwdGluZyB0aGUgam9iJ3Mga2V5CiMgICAgIChhbmQgdGhlIHVzZXJzc2ggcHVibGljIGtleXMpLCB3aXRoIGEgaG9zdCBrZXkgbWFkZSBoZXJlOwojICAgLSBhbiBzc2ggY2xpZW50IGNvbmZpZyB3aG9zZSBIb3N0IGVudHJpZXMgbWFwIGV2ZXJ5IHBlZXIncyBhbGlhcwojICAgICAoPHJvbGU+LTxpPiwgb3IgdGhlIE1QSUpvYiBwb2QgaG9zdCBuYW1lcykgdG8gaXRzIGFkZHJlc3MgYW5kIHBvcnQsCiMgICAgIHVzZWQgdGhyb3VnaCBhbiBgc3NoYCBlYXJseSBvbiBQQVRILCBzbyBgc3NoIHdvcmtlci0wYCwgbXBpcnVuIGFuZAojICAgICBob3Jvdm9kcnVuIHJlYWNoIHRoZSBwZWVycyB1bmNoYW5nZWQ7CiMgICAtIGZvciBhbiBNUElKb2IgdGFzaywgdGhlIGhvc3RmaWxlIChhbmQga3ViZXhlYy5zaCkgaW4gdGhlIG1waSBkaXI7CiMgICAtIHNzaGJhcnJpZXI6IHRoZSBjb21tYW5kIHN0YXJ0cyBvbmNlIGV2ZXJ5IHBlZXIncyBzc2hkIGFuc3dlcnMuCiMgVGhlbiBpdCBleGVjcyB0aGUgY29tbWFuZCAob3IsIHdpdGggLS1pZGxlLCBydW5zIHRoZSBzc2hkIGluIHRoZQojIGZvcmVncm91bmQ6IGFuIE1QSUpvYiB3b3JrZXIgd2hvc2Ugb3duIGNvbW1hbmQgd2FzIGFuIHNzaGQpLgojCiMgVXNhZ2U6IHNoIHNzaGVtdS5zaCBbLS1pZGxlXSBbLS1dIGNvbW1hbmQgW2FyZ3MuLi5dCiMgRW52aXJvbm1lbnQgKHNlZSBkcml2ZXJzL3NzaGVtdSBhbmQgdHJhbnNsYXRlL2NvbnRyYWN0L3NzaC5nbyk6CiMgICBKT0JTSElGVF9TU0hfSE9TVFMgICAiPGFkZHI+IDxwb3J0PiA8YWxpYXM+Li4uIiwgZW50cmllcyBqb2luZWQgYnkgJywnCiMgICBKT0JTSElGVF9TU0hfU0VMRiAgICB0aGlzIHRhc2sncyBmaXJzdCBhbGlhcwojICAgSk9CU0hJRlRfU1NIX0tFWSAgICAgdGhlIGpvYidzIHByaXZhdGUga2V5IGZpbGUgKGEgc2VjcmV0OyByZWFkIG9ubHkpCiMgICBKT0JTSElGVF9TU0hfRElSICAgICB3aGVyZSB0aGlzIHRhc2sncyBzc2hkIGFuZCBjbGllbnQgZmlsZXMgZ28KIyAgICAgICAgICAgICAgICAgICAgICAgICgiIiA9IGEgbmV3IGRpcmVjdG9yeSB1bmRlciAkVE1QRElSKQojICAgSk9CU0hJRlRfU1NIX1VTRVJLRVlTICBleHRyYSBhdXRob3JpemVkIHB1YmxpYyBrZXlzLCBvbmUgcGVyIGxpbmUKIyAgIEpPQlNISUZUX1NTSF9CQVJSSUVSIHNlY29uZHMgdG8gd2FpdCBmb3IgZXZlcnkgcGVlciAoIiIgPSBubyBiYXJyaWVyKQojICAgSk9CU0hJRlRfTVBJX0RJUiwgSk9CU0hJRlRfTVBJX0hPU1RGSUxFICBob3N0ZmlsZSBsaW5lcyBqb2luZWQgYnkgJywnCiMgICBKT0JTSElGVF9NUElSVU4gICAgICBhIHByb2dyYW0gcnVuIGFzIG1waXJ1bi9tcGlleGVjL29ydGVydW4gKCIiID0gbm9uZSkKIyBFeGl0IGNvZGVzOiAyNDkgYmFycmllciB0aW1lb3V0IChPcGVuUEFJJ3MgY29kZSksIDEgc2V0dXAgZmFpbHVyZS4KCnNldCAtdQp1bWFzayAwNzcKCmZhaWwoKSB7CglwcmludGYgJ2pvYnNoaWZ0IHNzaCBlbXVsYXRpb246ICVzXG4nICIkKiIgPiYyCgltcGlfcmVsZWFzZQoJZXhpdCAxCn0KCiMgVGhlIE1QSSBkaXJlY3RvcnkgbGl2ZXMgYXMgbG9uZyBhcyBhIHRhc2sgdGhhdCB1c2VzIGl0OiBlYWNoIHRhc2sgaG9sZHMKIyBhIG1hcmtlciBpbiBpdCwgYW5kIHRoZSBsYXN0IG9uZSB0byBlbmQgcmVtb3ZlcyB0aGUgZGlyZWN0b3J5IChzZXZlcmFsCiMgdGFza3Mgb2YgYSBqb2IgbWF5IHNoYXJlIGl0IG9uIG9uZSBob3N0LCBlLmcuIE5vbWFkJ3MgL3RtcCBwYXRoKS4KbWFya2VyPScnCm1waV9yZWxlYXNlKCkgewoJWyAtbiAiJG1hcmtlciIgXSB8fCByZXR1cm4gMAoJcm0gLWYgIiRtYXJrZXIiCgltYXJrZXI9JycKCWZvciBtIGluICIkbWRpciIvLnRhc2suKjsgZG8KCQlbIC1lICIkbSIgXSAmJiByZXR1cm4gMAoJZG9uZQoJcm0gLXJmICIkbWRpciIKfQoKIyBvd25fZGlyIG1ha2VzIERJUiB0aGlzIHVzZXIncyBwcml2YXRlIGRpcmVjdG9yeSwgb3IgcmVmdXNlcyBpdC4gT24gYQojIHNoYXJlZCBtYWNoaW5lIGEgcGF0aCBvdGhlcnMgY2FuIHByZWRpY3QgKE5vbWFkJ3Mgam9ic2hpZnQtbXBpLTxqb2I+KSBtYXkKIyBoYXZlIGJlZW4gbWFkZSBieSBhbm90aGVyIHVzZXIsIHdobyBjb3VsZCB0aGVuIHN3YXAgdGhlIGZpbGVzIHRoaXMgdGFzawojIHJ1bnMgKGt1YmV4ZWMuc2gsIGJpbi9zc2gpOiBESVIgbXVzdCBiZSBtYWRlIGZyZXNoIGhlcmUsIG9yIGJlIGEgcmVhbAojIGRpcmVjdG9yeSBvZiB0aGlzIHVzZXIncyB0aGF0IG5vYm9keSBlbHNlIGNhbiB3cml0ZSAob25lIHRoYXQgYW5vdGhlcgojIHRhc2sgb2YgdGhpcyBqb2IgbWFkZSkuIEEgZGlyZWN0b3J5IG9mIG91cnMgaW4gYSBzdGlja3kgL3RtcCBjYW5ub3QgYmUKIyByZW5hbWVkIG9yIHJlcGxhY2VkIGJ5IGFub3RoZXIgdXNlciBhZnRlcndhcmRzLgpvd25fZGlyKCkgewoJZD0kMQoJbWtkaXIgIiRkIiAyPi9kZXYvbnVsbAoJeyBbICEgLUwgIiRkIiBdICYmIFsgLWQgIiRkIiBdOyB9IHx8IGZhaWwgIiRkIGlzIG5vdCBhIGRpcmVjdG9yeSAoYSBsaW5rIG9yIGEgZmlsZSBpcyBpbiB0aGUgd2F5KTogcmVmdXNpbmcgaXQiCgkjIHNoZWxsY2hlY2sgZGlzYWJsZT1TQzIwNDYgIyBscydzIGZpZWxkcywgc3BsaXQgb24gcHVycG9zZQoJc2V0IC0tICQobHMgLWxkICIkZCIpCglbIC1PICIkZCIgXSB8fCBmYWlsICIkZCBiZWxvbmdzIHRvIGFub3RoZXIgdXNlciAoJDMpOiByZWZ1c2luZyBpdDsgcmVtb3ZlIGl0IG9yIG5hbWUgYW5vdGhlciBkaXJlY3RvcnkiCgljYXNlICQxIGluCgk/Pz8/P3cqIHwgPz8/Pz8/Pz93KikgZmFpbCAiJGQgaXMgd3JpdGFibGUgYnkgb3RoZXIgdXNlcnMgKCQxKTogcmVmdXNpbmcgaXQiIDs7Cgllc2FjCgljaG1vZCA3MDAgIiRkIiB8fCBmYWlsICJjYW5ub3QgcHJvdGVjdCAkZCIKfQoKIyBzYWZlX3BhcmVudCBESVI6IG5vIG90aGVyIHVzZXIgY2FuIHJlbmFtZSBESVIgYXdheSBhbmQgcHV0IHRoZWlyIG93biBpbgojIGl0cyBwbGFjZTogaXRzIHBhcmVudCBiZWxvbmdzIHRvIHJvb3Qgb3IgdGhpcyB1c2VyIGFuZCBpcyB3cml0YWJsZSBieQojIG5vYm9keSBlbHNlLCBvciBpcyBzdGlja3kgKC90bXA7IE5vbWFkJ3Mgc2VjcmV0cy8pLiBOb21hZCdzIGxvY2FsLyBpcwojIG5laXRoZXIuCnNhZmVfcGFyZW50KCkgewoJcD0kKGRpcm5hbWUgIiQxIikKCSMgc2hlbGxjaGVjayBkaXNhYmxlPVNDMjA0NiAjIGxzJ3MgZmllbGRzLCBzcGxpdCBvbiBwdXJwb3NlCglzZXQgLS0gJChscyAtbGRuICIkcCIpCglbICIkMyIgPSAwIF0gfHwgWyAiJDMiID0gIiQoaWQgLXUpIiBdIHx8IGZhaWwgIiRwIGJlbG9uZ3MgdG8gYW5vdGhlciB1c2VyICh1aWQgJDMpLCB3aG8gY291bGQgcmVwbGFjZSB3aGF0IGlzIGluIGl0IgoJY2FzZSAkMSBpbgoJPz8/Pz8/Pz8/W3RUXSopIDs7Cgk/Pz8/P3cqIHwgPz8/Pz8/Pz93KikgZmFpbCAiJHAgaXMgd3JpdGFibGUgYnkgb3RoZXIgdXNlcnMgKCQxKSwgd2hvIGNvdWxkIHJlcGxhY2Ugd2hhdCBpcyBpbiBpdCIgOzsKCWVzYWMKfQoKaWRsZT0wCmlmIFsgIiR7MTotfSIgPSAtLWlkbGUgXTsgdGhlbgoJaWRsZT0xCglzaGlmdApmaQppZiBbICIkezE6LX0iID0gLS0gXTsgdGhlbgoJc2hpZnQKZmkKCmhvc3RzPSR7Sk9CU0hJRlRfU1NIX0hPU1RTOj99Cm1lPSR7Sk9CU0hJRlRfU1NIX1NFTEY6P30Ka2V5PSR7Sk9CU0hJRlRfU1NIX0tFWTo/fQpkaXI9JHtKT0JTSElGVF9TU0hfRElSOi19CmlmIFsgLXogIiRkaXIiIF07IHRoZW4KCWRpcj0kKG1rdGVtcCAtZCAiJHtUTVBESVI6LS90bXB9L2pvYnNoaWZ0LXNzaC5YWFhYWFgiKSB8fCBmYWlsICJjYW5ub3QgbWFrZSBhIGRpcmVjdG9yeSB1bmRlciAke1RNUERJUjotL3RtcH0iCmZpCnNhZmVfcGFyZW50ICIkZGlyIgpvd25fZGlyICIkZGlyIgpvd25fZGlyICIkZGlyL2JpbiIKCnNzaGQ9JHtKT0JTSElGVF9TU0hEOi19CmlmIFsgLXogIiRzc2hkIiBdOyB0aGVuCglzc2hkPSQoY29tbWFuZCAtdiBzc2hkKSB8fCBzc2hkPS91c3Ivc2Jpbi9zc2hkCmZpCnNzaD0kKGNvbW1hbmQgLXYgc3NoKSB8fCBmYWlsICJzc2ggbm90IGZvdW5kIG9uIFBBVEggKGluc3RhbGwgb3BlbnNzaC1jbGllbnQpIgpjYXQ9JChjb21tYW5kIC12IGNhdCkgfHwgZmFpbCAiY2F0IG5vdCBmb3VuZCBvbiBQQVRIIgprZXlnZW49JChjb21tYW5kIC12IHNzaC1rZXlnZW4pIHx8IGZhaWwgInNzaC1rZXlnZW4gbm90IGZvdW5kIG9uIFBBVEggKGluc3RhbGwgb3BlbnNzaC1jbGllbnQpIgpbIC14ICIkc3NoZCIgXSB8fCBmYWlsICJzc2hkIG5vdCBmb3VuZCAoaW5zdGFsbCBvcGVuc3NoLXNlcnZlciwgb3Igc2V0IEpPQlNISUZUX1NTSEQpIgp1c2VyPSQoaWQgLXVuKSB8fCBmYWlsICJjYW5ub3QgdGVsbCB0aGUgdXNlciBuYW1lIgoKIyBxIHF1b3RlcyBhIHZhbHVlIGZvciBzc2hfY29uZmlnIC8gc3NoZF9jb25maWcgKCIuLi4iOyAnJScgZG91YmxlZCBmb3IgdGhlCiMgdG9rZW5zIHNzaGQgZXhwYW5kcykuCnEoKSB7IHByaW50ZiAnIiVzIicgIiQocHJpbnRmICclcycgIiQxIiB8IHNlZCAncy8lLyUlL2cnKSI7IH0KIyBzcSBxdW90ZXMgYSB2YWx1ZSBmb3Igc2guCnNxKCkgeyBwcmludGYgIiclcyciICIkKHByaW50ZiAnJXMnICIkMSIgfCBzZWQgInMvJy8nXFxcXCcnL2ciKSI7IH0KCiMgVGhlIGtleSBpcyB1c2VkIHdoZXJlIHRoZSB0YXJnZXQgcHV0IGl0ICgwNjAwKTogbm8gY29weSBvZiBhIHNlY3JldC4KIiRrZXlnZW4iIC15IC1mICIka2V5IiA+IiRkaXIvaWQucHViIiB8fCBmYWlsICJjYW5ub3QgcmVhZCB0aGUgam9iIGtleSAka2V5Igp7CgljYXQgIiRkaXIvaWQucHViIgoJaWYgWyAtbiAiJHtKT0JTSElGVF9TU0hfVVNFUktFWVM6LX0iIF07IHRoZW4KCQlwcmludGYgJyVzXG4nICIkSk9CU0hJRlRfU1NIX1VTRVJLRVlTIgoJZmkKfSA+IiRkaXIvYXV0aG9yaXplZF9rZXlzIgpybSAtZiAiJGRpci9ob3N0X2tleSIgIiRkaXIvaG9zdF9rZXkucHViIgoiJGtleWdlbiIgLXEgLXQgZWQyNTUxOSAtTiAnJyAtZiAiJGRpci9ob3N0X2tleSIgfHwgZmFpbCAiY2Fubm90IG1ha2UgYSBob3N0IGtleSIKCiMgVGhlIGNsaWVudCBjb25maWc6IG9uZSBIb3N0IGJsb2NrIHBlciBwZWVyLCB0aGVuIHRoZSBqb2Itd2lkZSBzZXR0aW5ncy4KIyAoQSBmdW5jdGlvbiwgc28gYHNldCAtLWAgbGVhdmVzIHRoZSBjb21tYW5kJ3MgYXJndW1lbnRzIGFsb25lLikKaG9zdF9ibG9ja3MoKSB7CglvbGRfaWZzPSRJRlMKCUlGUz0sCglmb3IgZW50cnkgaW4gJGhvc3RzOyBkbwoJCUlGUz0nICcKCQkjIHNoZWxsY2hlY2sgZGlzYWJsZT1TQzIwODYgIyB0aGUgZW50cnkgaXMgc3BsaXQgb24gcHVycG9zZQoJCXNldCAtLSAkZW50cnkKCQlJRlM9LAoJCVsgJCMgLWdlIDMgXSB8fCBmYWlsICJiYWQgaG9zdCBlbnRyeSAnJGVudHJ5JyIKCQlhPSQxIHA9JDIKCQlzaGlmdCAyCgkJIyBFdmVyeSB2YWx1ZSBpcyBjaGVja2VkIGJlZm9yZSBpdCByZWFjaGVzIHNzaF9jb25maWcgKHRoZSBncmFtbWFyCgkJIyBvZiB0cmFuc2xhdGUvY29udHJhY3QncyB0b3BvbG9neSBjaGVja3MpOiBhbiBhZGRyZXNzIGZyb20gYQoJCSMgZm9yZ2VkIHRvcG9sb2d5IGNvdWxkIGNhcnJ5IGEgbmV3bGluZSBhbmQgYSBQcm94eUNvbW1hbmQuCgkJY2FzZSAkYSBpbiAnJyB8ICpbIUEtWmEtejAtOS46Xy1dKikgZmFpbCAiYmFkIGFkZHJlc3MgaW4gaG9zdCBlbnRyeSAnJGVudHJ5JyIgOzsgZXNhYwoJCWNhc2UgJHAgaW4gJycgfCAqWyEwLTldKiB8IDAqKSBmYWlsICJiYWQgcG9ydCBpbiBob3N0IGVudHJ5ICckZW50cnknIiA7OyBlc2FjCgkJWyAiJHAiIC1sZSA2NTUzNSBdIHx8IGZhaWwgImJhZCBwb3J0IGluIGhvc3QgZW50cnkgJyRlbnRyeSciCgkJZm9yIG4gaW4gIiRAIjsgZG8KCQkJY2FzZSAkbiBpbiAnJyB8ICpbIUEtWmEtejAtOS5fLV0qKSBmYWlsICJiYWQgaG9zdCBuYW1lIGluIGhvc3QgZW50cnkgJyRlbnRyeSciIDs7IGVzYWMKCQlkb25lCgkJSUZTPScgJyAjICIkKiIgam9pbnMgd2l0aCB0aGUgZmlyc3QgY2hhcmFjdGVyIG9mIElGUwoJCXByaW50ZiAnSG9zdCAlc1xuXHRIb3N0TmFtZSAlc1xuXHRQb3J0ICVzXG4nICIkKiIgIiQocSAiJGEiKSIgIiRwIiA+PiIkZGlyL3NzaF9jb25maWciCgkJSUZTPSwKCQlhbGlhc2VzPSIkYWxpYXNlcyAkMSIKCQlmb3IgbiBpbiAiJEAiOyBkbwoJCQlpZiBbICIkbiIgPSAiJG1lIiBdOyB0aGVuCgkJCQlhZGRyPSRhIHBvcnQ9JHAKCQkJZmkKCQlkb25lCglkb25lCglJRlM9JG9sZF9pZnMKfQphZGRyPScnIHBvcnQ9JycgYWxpYXNlcz0nJwo6ID4iJGRpci9zc2hfY29uZmlnIgpob3N0X2Jsb2NrcwpbIC1uICIkcG9ydCIgXSB8fCBmYWlsICJ0aGlzIHRhc2sgKCRtZSkgaXMgbm90IGluIEpPQlNISUZUX1NTSF9IT1NUUyIKY2F0ID4+IiRkaXIvc3NoX2NvbmZpZyIgPDxFT0YKSG9zdCAqCglVc2VyICR1c2VyCglJZGVudGl0eUZpbGUgJChxICIka2V5IikKCUlkZW50aXRpZXNPbmx5IHllcwoJU3RyaWN0SG9zdEtleUNoZWNraW5nIG5vCglVc2VyS25vd25Ib3N0c0ZpbGUgL2Rldi9udWxsCglHbG9iYWxLbm93bkhvc3RzRmlsZSAvZGV2L251bGwKCUxvZ0xldmVsIEVSUk9SCglCYXRjaE1vZGUgeWVzCglDb25uZWN0aW9uQXR0ZW1wdHMgMTAKRU9GCnByaW50ZiAnIyEvYmluL3NoXG5leGVjICVzIC1GICVzICIkQCJcbicgIiQoc3EgIiRzc2giKSIgIiQoc3EgIiRkaXIvc3NoX2NvbmZpZyIpIiA+IiRkaXIvYmluL3NzaCIKY2htb2QgNzAwICIkZGlyL2Jpbi9zc2giCiMgQSB0YXJnZXQgdGhhdCBsYXVuY2hlcyBNUEkgcmFua3MgaXRzZWxmIChTbHVybSdzIG1waSA9ICJwbWl4IikgbmFtZXMgaXRzCiMgbXBpcnVuIGluIEpPQlNISUZUX01QSVJVTjogdGhlIHVzZXIncyBtcGlydW4gbGluZSBydW5zIGl0IHVuY2hhbmdlZC4KaWYgWyAtbiAiJHtKT0JTSElGVF9NUElSVU46LX0iIF07IHRoZW4KCWZvciBtIGluIG1waXJ1biBtcGlleGVjIG9ydGVydW47IGRvCgkJcHJpbnRmICcjIS9iaW4vc2hcbkpPQlNISUZUX01QSVJVTl9TS0lQPSVzIGV4ZWMgc2ggJXMgIiRAIlxuJyAiJChzcSAiJGRpci9iaW4iKSIgIiQoc3EgIiRKT0JTSElGVF9NUElSVU4iKSIgPiIkZGlyL2Jpbi8kbSIKCQljaG1vZCA3MDAgIiRkaXIvYmluLyRtIgoJZG9uZQpmaQpQQVRIPSRkaXIvYmluOiRQQVRICmV4cG9ydCBQQVRICgojIFRoZSBzc2hkOiBrZXkgbG9naW5zIG9ubHksIGZvciB0aGlzIHVzZXIsIHdpdGggdGhlIHRhc2sncyBzZWFyY2ggcGF0aHMKIyAoYW4gc3NoIHNlc3Npb24gc3RhcnRzIHdpdGggYSBmcmVzaCBlbnZpcm9ubWVudDsgT3BlblBBSSBjb3BpZWQgaXRzCiMgdmFyaWFibGVzIHRvIC9ldGMvZW52aXJvbm1lbnQgZm9yIHRoZSBzYW1lIHJlYXNvbikuCnsKCXByaW50ZiAnUG9ydCAlc1xuTGlzdGVuQWRkcmVzcyAlc1xuJyAiJHBvcnQiICIkYWRkciIKCXByaW50ZiAnSG9zdEtleSAlc1xuUGlkRmlsZSAlc1xuJyAiJChxICIkZGlyL2hvc3Rfa2V5IikiICIkKHEgIiRkaXIvc3NoZC5waWQiKSIKCSMgU3RyaWN0TW9kZXMgY2hlY2tzIGFuIEF1dGhvcml6ZWRLZXlzRmlsZSdzIGV2ZXJ5IHBhcmVudCBkaXJlY3RvcnksCgkjIHdoaWNoIG9uIE5vbWFkICgwNzc3KSBhbmQgdW5kZXIgL3RtcCAoMTc3NykgZmFpbHM6IHRoZSBrZXlzIGNvbWUKCSMgZnJvbSBhIGNvbW1hbmQgaW5zdGVhZCAocm9vdCdzIGNhdCwgd2hpY2ggc3NoZCBjaGVja3MpIHJlYWRpbmcgdGhlbQoJIyBpbiB0aGlzIHByaXZhdGUgZGlyZWN0b3J5LCB3aGljaCBzYWZlX3BhcmVudCBrZWVwcyBpbiBwbGFjZS4KCXByaW50ZiAnQXV0aG9yaXplZEtleXNGaWxlIG5vbmVcbkF1dGhvcml6ZWRLZXlzQ29tbWFuZCAlcyAlc1xuQXV0aG9yaXplZEtleXNDb21tYW5kVXNlciAlc1xuJyAiJGNhdCIgIiQocSAiJGRpci9hdXRob3JpemVkX2tleXMiKSIgIiR1c2VyIgoJcHJpbnRmICdTdHJpY3RNb2RlcyB5ZXNcblVzZVBBTSBub1xuUGFzc3dvcmRBdXRoZW50aWNhdGlvbiBub1xuS2JkSW50ZXJhY3RpdmVBdXRoZW50aWNhdGlvbiBub1xuJwoJcHJpbnRmICdQdWJrZXlBdXRoZW50aWNhdGlvbiB5ZXNcblBlcm1pdFJvb3RMb2dpbiBwcm9oaWJpdC1wYXNzd29yZFxuQWxsb3dVc2VycyAlc1xuJyAiJHVzZXIiCglwcmludGYgJ1ByaW50TW90ZCBub1xuWDExRm9yd2FyZGluZyBub1xuTWF4U3RhcnR1cHMgMTAwOjMwOjIwMFxuTWF4U2Vzc2lvbnMgMTAwXG4nCglmb3IgdiBpbiBQQVRIIExEX0xJQlJBUllfUEFUSCBQWVRIT05QQVRIIE9NUElfQUxMT1dfUlVOX0FTX1JPT1QgT01QSV9BTExPV19SVU5fQVNfUk9PVF9DT05GSVJNOyBkbwoJCWV2YWwgInZhbD1cJHskdi19IgoJCSMgc2hlbGxjaGVjayBkaXNhYmxlPVNDMjE1NCAjIHZhbCBpcyBzZXQgYnkgdGhlIGV2YWwKCQljYXNlICR2YWwgaW4KCQknJyB8IConIicqIHwgKiclJyopIDs7CgkJKikgcHJpbnRmICdTZXRFbnYgIiVzPSVzIlxuJyAiJHYiICIkdmFsIiA7OwoJCWVzYWMKCWRvbmUKfSA+IiRkaXIvc3NoZF9jb25maWciCmlmIFsgIiQoaWQgLXUpIiA9IDAgXTsgdGhlbgoJbWtkaXIgLXAgL3J1bi9zc2hkIDI+L2Rldi9udWxsICMgcHJpdmlsZWdlIHNlcGFyYXRpb24gZGlyZWN0b3J5CmZpCgojIEV2ZXJ5IE1QSUpvYiB0YXNrJ3MgZmlsZXMsIGFzIHRoZSBvcGVyYXRvcidzIENvbmZpZ01hcCBoZWxkIHRoZW0uCmlmIFsgLW4gIiR7Sk9CU0hJRlRfTVBJX0hPU1RGSUxFOi19IiBdOyB0aGVuCgltZGlyPSR7Sk9CU0hJRlRfTVBJX0RJUjo/fQoJIyBwcml2YXRlOiBvbmx5IHRoaXMgdXNlcidzIHRhc2tzIHJlYWQgaXQgKFNsdXJtIG1hZGUgaXQgMDcwMCBhbHJlYWR5KQoJb3duX2RpciAiJG1kaXIiCgltYXJrZXI9JChta3RlbXAgIiRtZGlyLy50YXNrLiRtZS5YWFhYWFgiKSB8fCBmYWlsICJjYW5ub3Qgd3JpdGUgaW4gJG1kaXIiCgkjIHNoZWxsY2hlY2sgZGlzYWJsZT1TQzIwMTUgIyBmYWlsIGV4aXRzCglwcmludGYgJyVzXG4nICIkSk9CU0hJRlRfTVBJX0hPU1RGSUxFIiB8IHRyICcsJyAnXG4nID4iJG1kaXIvaG9zdGZpbGUudG1wLiQkIiAmJiBtdiAtZiAiJG1kaXIvaG9zdGZpbGUudG1wLiQkIiAiJG1kaXIvaG9zdGZpbGUiIHx8CgkJZmFpbCAiY2Fubm90IHdyaXRlICRtZGlyL2hvc3RmaWxlIgoJIyBrdWJleGVjLnNoIHdhcyBga3ViZWN0bCBleGVjIDxwb2Q+IC0tIC9iaW4vc2ggLWMgIiQqImA7IHNzaCBydW5zIHRoZQoJIyBzYW1lIGNvbW1hbmQgbGluZSBvbiB0aGUgc2FtZSBwb2QuIFRoZSBzYW1lIHRleHQgaW4gZXZlcnkgdGFzayAodGFza3MKCSMgb24gb25lIGhvc3Qgc2hhcmUgdGhlIGRpcmVjdG9yeSk6IHRoZSBzc2ggb24gUEFUSCBpcyBlYWNoIHRhc2sncyBvd24uCgkjIHNoZWxsY2hlY2sgZGlzYWJsZT1TQzIwMTUgIyBmYWlsIGV4aXRzCglwcmludGYgJyMhL2Jpbi9zaFxuZXhlYyBzc2ggIiRAIlxuJyA+IiRtZGlyL2t1YmV4ZWMuc2gudG1wLiQkIiAmJgoJCWNobW9kIDc1NSAiJG1kaXIva3ViZXhlYy5zaC50bXAuJCQiICYmIG12IC1mICIkbWRpci9rdWJleGVjLnNoLnRtcC4kJCIgIiRtZGlyL2t1YmV4ZWMuc2giIHx8CgkJZmFpbCAiY2Fubm90IHdyaXRlICRtZGlyL2t1YmV4ZWMuc2giCgljaG1vZCA2NDQgIiRtZGlyL2hvc3RmaWxlIgpmaQoKIiRzc2hkIiAtdCAtZiAiJGRpci9zc2hkX2NvbmZpZyIgfHwgZmFpbCAic3NoZCByZWplY3RzIGl0cyBjb25maWd1cmF0aW9uICRkaXIvc3NoZF9jb25maWciCmlmIFsgIiRpZGxlIiA9IDEgXTsgdGhlbgoJaWYgWyAteiAiJG1hcmtlciIgXTsgdGhlbgoJCWV4ZWMgIiRzc2hkIiAtRCAtZSAtZiAiJGRpci9zc2hkX2NvbmZpZyIKCWZpCgkjIHRoZSBzc2hkIGluIHRoZSBmb3JlZ3JvdW5kLCBidXQgdGhpcyBzaGVsbCBzdGF5cyB0byByZWxlYXNlIHRoZQoJIyBNUEkgZGlyZWN0b3J5IHdoZW4gdGhlIHRhcmdldCBzdG9wcyB0aGUgdGFzawoJIyB0aGUgdHJhcCBpcyBzZXQgYmVmb3JlIHRoZSBmb3JrIGFuZCBhIHN0b3AgdGhhdCBjYW1lIGJlZm9yZSAkc3BpZAoJIyB3YXMga25vd24gaXMgcGFzc2VkIG9uIGFmdGVyOiBubyBzdG9wIGlzIGxvc3QgKG5vciBraWxscyB0aGlzIHNoZWxsCgkjIGJlZm9yZSBpdCByZWxlYXNlZCB0aGUgTVBJIGRpcmVjdG9yeSkKCXN0b3A9MCBzcGlkPQoJdHJhcCAnc3RvcD0xOyBbIC1uICIkc3BpZCIgXSAmJiBraWxsICIkc3BpZCIgMj4vZGV2L251bGwnIFRFUk0gSU5UIEhVUAoJIiRzc2hkIiAtRCAtZSAtZiAiJGRpci9zc2hkX2NvbmZpZyIgPC9kZXYvbnVsbCAmCglzcGlkPSQhCglbICIkc3RvcCIgPSAxIF0gJiYga2lsbCAiJHNwaWQiIDI+L2Rldi9udWxsCgl3YWl0ICIkc3BpZCIKCXJjPSQ/CglraWxsICIkc3BpZCIgMj4vZGV2L251bGwgJiYgd2FpdCAiJHNwaWQiCgltcGlfcmVsZWFzZQoJZXhpdCAiJHJjIgpmaQojIFRoZSBzc2hkIGxpdmVzIGFzIGxvbmcgYXMgdGhlIGNvbW1hbmQ6IGEgd2F0Y2hlciBzdG9wcyBpdCBvbmNlIHRoZQojIHByb2Nlc3MgdGhhdCBiZWNvbWVzIHRoZSBjb21tYW5kICh0aGlzIHNoZWxsJ3MgcGlkKSBpcyBnb25lLCB3aGF0ZXZlcgojIHRoZSB0YXJnZXQncyBvd24gY2xlYW4tdXAgZG9lcy4KbWFpbj0kJAooCgkiJHNzaGQiIC1EIC1lIC1mICIkZGlyL3NzaGRfY29uZmlnIiAyPj4iJGRpci9zc2hkLmxvZyIgPC9kZXYvbnVsbCAmCglzcGlkPSQhCgkjIGEgc3RvcCBzaWduYWwgdG8gdGhlIHRhc2sncyBwcm9jZXNzIGdyb3VwIGVuZHMgdGhlIGNvbW1hbmQsIG5vdCB0aGUKCSMgd2F0Y2hlcjogaXQgc3RpbGwgc3RvcHMgdGhlIHNzaGQgYW5kIHJlbGVhc2VzIHRoZSBNUEkgZGlyZWN0b3J5CgkjIChzZXQgYWZ0ZXIgdGhlIHNzaGQgc3RhcnRlZDogYW4gaWdub3JlZCBzaWduYWwgc3RheXMgaWdub3JlZCBpbiBpdCkKCXRyYXAgJycgVEVSTSBJTlQgSFVQCgl3aGlsZSBraWxsIC0wICIkbWFpbiIgMj4vZGV2L251bGwgJiYga2lsbCAtMCAiJHNwaWQiIDI+L2Rldi9udWxsOyBkbwoJCXNsZWVwIDEKCWRvbmUKCWtpbGwgIiRzcGlkIiAyPi9kZXYvbnVsbAoJbXBpX3JlbGVhc2UKKSA8L2Rldi9udWxsID4vZGV2L251bGwgMj4mMSAmCgppZiBbIC1uICIke0pPQlNISUZUX1NTSF9CQVJSSUVSOi19IiBdOyB0aGVuCgllbmQ9JCgoJChkYXRlICslcykgKyBKT0JTSElGVF9TU0hfQkFSUklFUikpCglmb3IgaCBpbiAkYWxpYXNlczsgZG8KCQl1bnRpbCBzc2ggLW8gQ29ubmVjdFRpbWVvdXQ9MiAtbyBDb25uZWN0aW9uQXR0ZW1wdHM9MSAiJGgiIHRydWUgPC9kZXYvbnVsbCAyPi9kZXYvbnVsbDsgZG8KCQkJaWYgWyAiJChkYXRlICslcykiIC1nZSAiJGVuZCIgXTsgdGhlbgoJCQkJcHJpbnRmICdqb2JzaGlmdCBzc2ggZW11bGF0aW9uOiBzc2hiYXJyaWVyOiAlcyBkb2VzIG5vdCBhbnN3ZXIgYWZ0ZXIgJXNzXG4nICIkaCIgIiRKT0JTSElGVF9TU0hfQkFSUklFUiIgPiYyCgkJCQltcGlfcmVsZWFzZQoJCQkJZXhpdCAyNDkKCQkJZmkKCQkJc2xlZXAgMQoJCWRvbmUKCWRvbmUKZmkKIyBVbmRlciBTbHVybSwgT3Blbk1QSSdzIGFuZCBIeWRyYSdzIGxhdW5jaGVycyB3b3VsZCBzZWUgdGhlIGFsbG9jYXRpb24KIyBhbmQgc3RhcnQgdGhlaXIgZGFlbW9ucyB3aXRoIHNydW4gb24gU2x1cm0ncyBub2RlcyBpbnN0ZWFkIG9mIHRoZSBwZWVycwojIHRoZSBjb21tYW5kIG5hbWVzOyBvbiB0aGUgc291cmNlIHBsYXRmb3JtIHRoZXkgdXNlZCBzc2ggYW5kIHRoZQojIGhvc3RmaWxlLiAoQSB1c2VyJ3Mgb3duIHNldHRpbmcgd2lucy4pCmlmIFsgLW4gIiR7U0xVUk1fSk9CX0lEOi19IiBdOyB0aGVuCglPTVBJX01DQV9wbG09JHtPTVBJX01DQV9wbG06LXJzaH0KCU9NUElfTUNBX3Jhcz0ke09NUElfTUNBX3JhczotXnNsdXJtfQoJSV9NUElfSFlEUkFfQk9PVFNUUkFQPSR7SV9NUElfSFlEUkFfQk9PVFNUUkFQOi1zc2h9CglIWURSQV9MQVVOQ0hFUj0ke0hZRFJBX0xBVU5DSEVSOi1zc2h9CglleHBvcnQgT01QSV9NQ0FfcGxtIE9NUElfTUNBX3JhcyBJX01QSV9IWURSQV9CT09UU1RSQVAgSFlEUkFfTEFVTkNIRVIKZmkKWyAkIyAtZ3QgMCBdIHx8IHsgbXBpX3JlbGVhc2U7IGV4aXQgMDsgfQpbIC1uICIkbWFya2VyIiBdIHx8IGV4ZWMgIiRAIgojIEEgdGFzayBob2xkaW5nIHRoZSBNUEkgZGlyZWN0b3J5IHJ1bnMgaXRzIGNvbW1hbmQgYXMgYSBjaGlsZCwgc28gdGhhdCBpdAojIGNhbiByZWxlYXNlIHRoZSBkaXJlY3Rvcnkgd2hlbiB0aGUgY29tbWFuZCBlbmRzOiBhbiBleGVjJ2QgY29tbWFuZCdzCiMgZW5kIGlzIHRoZSB0YXNrJ3MsIGFuZCB0aGUgdGFyZ2V0IGtpbGxzIHdoYXQgaXMgbGVmdCBhdCBvbmNlIChOb21hZCdzCiMgZXhlY3V0b3IgZG9lcykuIFN0b3Agc2lnbmFscyBhcmUgcGFzc2VkIG9uOyBzdGRpbiBzdGF5cyB0aGUgdGFzaydzLgojIChUaGUgdHJhcCBpcyBzZXQgYmVmb3JlIHRoZSBmb3JrLCBhbmQgYSBzdG9wIHRoYXQgY2FtZSBiZWZvcmUgJGNwaWQgd2FzCiMga25vd24gaXMgcGFzc2VkIG9uIGFmdGVyIGl0LikKc3RvcD0wIGNwaWQ9CnRyYXAgJ3N0b3A9MTsgWyAtbiAiJGNwaWQiIF0gJiYga2lsbCAtVEVSTSAiJGNwaWQiIDI+L2Rldi9udWxsJyBURVJNIElOVCBIVVAKZXhlYyAzPCYwCiIkQCIgPCYzIDM8Ji0gJgpjcGlkPSQhCmV4ZWMgMzwmLQpbICIkc3RvcCIgPSAxIF0gJiYga2lsbCAtVEVSTSAiJGNwaWQiIDI+L2Rldi9udWxsCndhaXQgIiRjcGlkIgpyYz0kPwp3aGlsZSBraWxsIC0wICIkY3BpZCIgMj4vZGV2L251bGw7IGRvCgl3YWl0ICIkY3BpZCIKCXJjPSQ/CmRvbmUKbXBpX3JlbGVhc2UKZXhpdCAiJHJjIgo=\" }}"
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
      jobshift_role = "launcher"
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
        JOBSHIFT_SSH_DIR     = "$${NOMAD_SECRETS_DIR}/jobshift-ssh"
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
        data        = "{{ base64Decode \"IyBqb2JzaGlmdCBzc2ggZW11bGF0aW9uOiB3aGF0IE9wZW5QQUkncyBzc2ggcnVudGltZSBwbHVnaW4gYW5kCiMgbXBpLW9wZXJhdG9yJ3MgcG9kcyBnYXZlIGV2ZXJ5IHRhc2ssIHJlYnVpbHQgd2l0aG91dCByb290IGFuZCB3aXRob3V0CiMgdG91Y2hpbmcgdGhlIHVzZXIncyB+Ly5zc2g6CiMgICAtIGFuIHNzaGQgb2YgdGhlIHRhc2sncyBvd24gb24gaXRzIGBzc2hgIHBvcnQsIGFjY2VwdGluZyB0aGUgam9iJ3Mga2V5CiMgICAgIChhbmQgdGhlIHVzZXJzc2ggcHVibGljIGtleXMpLCB3aXRoIGEgaG9zdCBrZXkgbWFkZSBoZXJlOwojICAgLSBhbiBzc2ggY2xpZW50IGNvbmZpZyB3aG9zZSBIb3N0IGVudHJpZXMgbWFwIGV2ZXJ5IHBlZXIncyBhbGlhcwojICAgICAoPHJvbGU+LTxpPiwgb3IgdGhlIE1QSUpvYiBwb2QgaG9zdCBuYW1lcykgdG8gaXRzIGFkZHJlc3MgYW5kIHBvcnQsCiMgICAgIHVzZWQgdGhyb3VnaCBhbiBgc3NoYCBlYXJseSBvbiBQQVRILCBzbyBgc3NoIHdvcmtlci0wYCwgbXBpcnVuIGFuZAojICAgICBob3Jvdm9kcnVuIHJlYWNoIHRoZSBwZWVycyB1bmNoYW5nZWQ7CiMgICAtIGZvciBhbiBNUElKb2IgdGFzaywgdGhlIGhvc3RmaWxlIChhbmQga3ViZXhlYy5zaCkgaW4gdGhlIG1waSBkaXI7CiMgICAtIHNzaGJhcnJpZXI6IHRoZSBjb21tYW5kIHN0YXJ0cyBvbmNlIGV2ZXJ5IHBlZXIncyBzc2hkIGFuc3dlcnMuCiMgVGhlbiBpdCBleGVjcyB0aGUgY29tbWFuZCAob3IsIHdpdGggLS1pZGxlLCBydW5zIHRoZSBzc2hkIGluIHRoZQojIGZvcmVncm91bmQ6IGFuIE1QSUpvYiB3b3JrZXIgd2hvc2Ugb3duIGNvbW1hbmQgd2FzIGFuIHNzaGQpLgojCiMgVXNhZ2U6IHNoIHNzaGVtdS5zaCBbLS1pZGxlXSBbLS1dIGNvbW1hbmQgW2FyZ3MuLi5dCiMgRW52aXJvbm1lbnQgKHNlZSBkcml2ZXJzL3NzaGVtdSBhbmQgdHJhbnNsYXRlL2NvbnRyYWN0L3NzaC5nbyk6CiMgICBKT0JTSElGVF9TU0hfSE9TVFMgICAiPGFkZHI+IDxwb3J0PiA8YWxpYXM+Li4uIiwgZW50cmllcyBqb2luZWQgYnkgJywnCiMgICBKT0JTSElGVF9TU0hfU0VMRiAgICB0aGlzIHRhc2sncyBmaXJzdCBhbGlhcwojICAgSk9CU0hJRlRfU1NIX0tFWSAgICAgdGhlIGpvYidzIHByaXZhdGUga2V5IGZpbGUgKGEgc2VjcmV0OyByZWFkIG9ubHkpCiMgICBKT0JTSElGVF9TU0hfRElSICAgICB3aGVyZSB0aGlzIHRhc2sncyBzc2hkIGFuZCBjbGllbnQgZmlsZXMgZ28KIyAgICAgICAgICAgICAgICAgICAgICAgICgiIiA9IGEgbmV3IGRpcmVjdG9yeSB1bmRlciAkVE1QRElSKQojICAgSk9CU0hJRlRfU1NIX1VTRVJLRVlTICBleHRyYSBhdXRob3JpemVkIHB1YmxpYyBrZXlzLCBvbmUgcGVyIGxpbmUKIyAgIEpPQlNISUZUX1NTSF9CQVJSSUVSIHNlY29uZHMgdG8gd2FpdCBmb3IgZXZlcnkgcGVlciAoIiIgPSBubyBiYXJyaWVyKQojICAgSk9CU0hJRlRfTVBJX0RJUiwgSk9CU0hJRlRfTVBJX0hPU1RGSUxFICBob3N0ZmlsZSBsaW5lcyBqb2luZWQgYnkgJywnCiMgICBKT0JTSElGVF9NUElSVU4gICAgICBhIHByb2dyYW0gcnVuIGFzIG1waXJ1bi9tcGlleGVjL29ydGVydW4gKCIiID0gbm9uZSkKIyBFeGl0IGNvZGVzOiAyNDkgYmFycmllciB0aW1lb3V0IChPcGVuUEFJJ3MgY29kZSksIDEgc2V0dXAgZmFpbHVyZS4KCnNldCAtdQp1bWFzayAwNzcKCmZhaWwoKSB7CglwcmludGYgJ2pvYnNoaWZ0IHNzaCBlbXVsYXRpb246ICVzXG4nICIkKiIgPiYyCgltcGlfcmVsZWFzZQoJZXhpdCAxCn0KCiMgVGhlIE1QSSBkaXJlY3RvcnkgbGl2ZXMgYXMgbG9uZyBhcyBhIHRhc2sgdGhhdCB1c2VzIGl0OiBlYWNoIHRhc2sgaG9sZHMKIyBhIG1hcmtlciBpbiBpdCwgYW5kIHRoZSBsYXN0IG9uZSB0byBlbmQgcmVtb3ZlcyB0aGUgZGlyZWN0b3J5IChzZXZlcmFsCiMgdGFza3Mgb2YgYSBqb2IgbWF5IHNoYXJlIGl0IG9uIG9uZSBob3N0LCBlLmcuIE5vbWFkJ3MgL3RtcCBwYXRoKS4KbWFya2VyPScnCm1waV9yZWxlYXNlKCkgewoJWyAtbiAiJG1hcmtlciIgXSB8fCByZXR1cm4gMAoJcm0gLWYgIiRtYXJrZXIiCgltYXJrZXI9JycKCWZvciBtIGluICIkbWRpciIvLnRhc2suKjsgZG8KCQlbIC1lICIkbSIgXSAmJiByZXR1cm4gMAoJZG9uZQoJcm0gLXJmICIkbWRpciIKfQoKIyBvd25fZGlyIG1ha2VzIERJUiB0aGlzIHVzZXIncyBwcml2YXRlIGRpcmVjdG9yeSwgb3IgcmVmdXNlcyBpdC4gT24gYQojIHNoYXJlZCBtYWNoaW5lIGEgcGF0aCBvdGhlcnMgY2FuIHByZWRpY3QgKE5vbWFkJ3Mgam9ic2hpZnQtbXBpLTxqb2I+KSBtYXkKIyBoYXZlIGJlZW4gbWFkZSBieSBhbm90aGVyIHVzZXIsIHdobyBjb3VsZCB0aGVuIHN3YXAgdGhlIGZpbGVzIHRoaXMgdGFzawojIHJ1bnMgKGt1YmV4ZWMuc2gsIGJpbi9zc2gpOiBESVIgbXVzdCBiZSBtYWRlIGZyZXNoIGhlcmUsIG9yIGJlIGEgcmVhbAojIGRpcmVjdG9yeSBvZiB0aGlzIHVzZXIncyB0aGF0IG5vYm9keSBlbHNlIGNhbiB3cml0ZSAob25lIHRoYXQgYW5vdGhlcgojIHRhc2sgb2YgdGhpcyBqb2IgbWFkZSkuIEEgZGlyZWN0b3J5IG9mIG91cnMgaW4gYSBzdGlja3kgL3RtcCBjYW5ub3QgYmUKIyByZW5hbWVkIG9yIHJlcGxhY2VkIGJ5IGFub3RoZXIgdXNlciBhZnRlcndhcmRzLgpvd25fZGlyKCkgewoJZD0kMQoJbWtkaXIgIiRkIiAyPi9kZXYvbnVsbAoJeyBbICEgLUwgIiRkIiBdICYmIFsgLWQgIiRkIiBdOyB9IHx8IGZhaWwgIiRkIGlzIG5vdCBhIGRpcmVjdG9yeSAoYSBsaW5rIG9yIGEgZmlsZSBpcyBpbiB0aGUgd2F5KTogcmVmdXNpbmcgaXQiCgkjIHNoZWxsY2hlY2sgZGlzYWJsZT1TQzIwNDYgIyBscydzIGZpZWxkcywgc3BsaXQgb24gcHVycG9zZQoJc2V0IC0tICQobHMgLWxkICIkZCIpCglbIC1PICIkZCIgXSB8fCBmYWlsICIkZCBiZWxvbmdzIHRvIGFub3RoZXIgdXNlciAoJDMpOiByZWZ1c2luZyBpdDsgcmVtb3ZlIGl0IG9yIG5hbWUgYW5vdGhlciBkaXJlY3RvcnkiCgljYXNlICQxIGluCgk/Pz8/P3cqIHwgPz8/Pz8/Pz93KikgZmFpbCAiJGQgaXMgd3JpdGFibGUgYnkgb3RoZXIgdXNlcnMgKCQxKTogcmVmdXNpbmcgaXQiIDs7Cgllc2FjCgljaG1vZCA3MDAgIiRkIiB8fCBmYWlsICJjYW5ub3QgcHJvdGVjdCAkZCIKfQoKIyBzYWZlX3BhcmVudCBESVI6IG5vIG90aGVyIHVzZXIgY2FuIHJlbmFtZSBESVIgYXdheSBhbmQgcHV0IHRoZWlyIG93biBpbgojIGl0cyBwbGFjZTogaXRzIHBhcmVudCBiZWxvbmdzIHRvIHJvb3Qgb3IgdGhpcyB1c2VyIGFuZCBpcyB3cml0YWJsZSBieQojIG5vYm9keSBlbHNlLCBvciBpcyBzdGlja3kgKC90bXA7IE5vbWFkJ3Mgc2VjcmV0cy8pLiBOb21hZCdzIGxvY2FsLyBpcwojIG5laXRoZXIuCnNhZmVfcGFyZW50KCkgewoJcD0kKGRpcm5hbWUgIiQxIikKCSMgc2hlbGxjaGVjayBkaXNhYmxlPVNDMjA0NiAjIGxzJ3MgZmllbGRzLCBzcGxpdCBvbiBwdXJwb3NlCglzZXQgLS0gJChscyAtbGRuICIkcCIpCglbICIkMyIgPSAwIF0gfHwgWyAiJDMiID0gIiQoaWQgLXUpIiBdIHx8IGZhaWwgIiRwIGJlbG9uZ3MgdG8gYW5vdGhlciB1c2VyICh1aWQgJDMpLCB3aG8gY291bGQgcmVwbGFjZSB3aGF0IGlzIGluIGl0IgoJY2FzZSAkMSBpbgoJPz8/Pz8/Pz8/W3RUXSopIDs7Cgk/Pz8/P3cqIHwgPz8/Pz8/Pz93KikgZmFpbCAiJHAgaXMgd3JpdGFibGUgYnkgb3RoZXIgdXNlcnMgKCQxKSwgd2hvIGNvdWxkIHJlcGxhY2Ugd2hhdCBpcyBpbiBpdCIgOzsKCWVzYWMKfQoKaWRsZT0wCmlmIFsgIiR7MTotfSIgPSAtLWlkbGUgXTsgdGhlbgoJaWRsZT0xCglzaGlmdApmaQppZiBbICIkezE6LX0iID0gLS0gXTsgdGhlbgoJc2hpZnQKZmkKCmhvc3RzPSR7Sk9CU0hJRlRfU1NIX0hPU1RTOj99Cm1lPSR7Sk9CU0hJRlRfU1NIX1NFTEY6P30Ka2V5PSR7Sk9CU0hJRlRfU1NIX0tFWTo/fQpkaXI9JHtKT0JTSElGVF9TU0hfRElSOi19CmlmIFsgLXogIiRkaXIiIF07IHRoZW4KCWRpcj0kKG1rdGVtcCAtZCAiJHtUTVBESVI6LS90bXB9L2pvYnNoaWZ0LXNzaC5YWFhYWFgiKSB8fCBmYWlsICJjYW5ub3QgbWFrZSBhIGRpcmVjdG9yeSB1bmRlciAke1RNUERJUjotL3RtcH0iCmZpCnNhZmVfcGFyZW50ICIkZGlyIgpvd25fZGlyICIkZGlyIgpvd25fZGlyICIkZGlyL2JpbiIKCnNzaGQ9JHtKT0JTSElGVF9TU0hEOi19CmlmIFsgLXogIiRzc2hkIiBdOyB0aGVuCglzc2hkPSQoY29tbWFuZCAtdiBzc2hkKSB8fCBzc2hkPS91c3Ivc2Jpbi9zc2hkCmZpCnNzaD0kKGNvbW1hbmQgLXYgc3NoKSB8fCBmYWlsICJzc2ggbm90IGZvdW5kIG9uIFBBVEggKGluc3RhbGwgb3BlbnNzaC1jbGllbnQpIgpjYXQ9JChjb21tYW5kIC12IGNhdCkgfHwgZmFpbCAiY2F0IG5vdCBmb3VuZCBvbiBQQVRIIgprZXlnZW49JChjb21tYW5kIC12IHNzaC1rZXlnZW4pIHx8IGZhaWwgInNzaC1rZXlnZW4gbm90IGZvdW5kIG9uIFBBVEggKGluc3RhbGwgb3BlbnNzaC1jbGllbnQpIgpbIC14ICIkc3NoZCIgXSB8fCBmYWlsICJzc2hkIG5vdCBmb3VuZCAoaW5zdGFsbCBvcGVuc3NoLXNlcnZlciwgb3Igc2V0IEpPQlNISUZUX1NTSEQpIgp1c2VyPSQoaWQgLXVuKSB8fCBmYWlsICJjYW5ub3QgdGVsbCB0aGUgdXNlciBuYW1lIgoKIyBxIHF1b3RlcyBhIHZhbHVlIGZvciBzc2hfY29uZmlnIC8gc3NoZF9jb25maWcgKCIuLi4iOyAnJScgZG91YmxlZCBmb3IgdGhlCiMgdG9rZW5zIHNzaGQgZXhwYW5kcykuCnEoKSB7IHByaW50ZiAnIiVzIicgIiQocHJpbnRmICclcycgIiQxIiB8IHNlZCAncy8lLyUlL2cnKSI7IH0KIyBzcSBxdW90ZXMgYSB2YWx1ZSBmb3Igc2guCnNxKCkgeyBwcmludGYgIiclcyciICIkKHByaW50ZiAnJXMnICIkMSIgfCBzZWQgInMvJy8nXFxcXCcnL2ciKSI7IH0KCiMgVGhlIGtleSBpcyB1c2VkIHdoZXJlIHRoZSB0YXJnZXQgcHV0IGl0ICgwNjAwKTogbm8gY29weSBvZiBhIHNlY3JldC4KIiRrZXlnZW4iIC15IC1mICIka2V5IiA+IiRkaXIvaWQucHViIiB8fCBmYWlsICJjYW5ub3QgcmVhZCB0aGUgam9iIGtleSAka2V5Igp7CgljYXQgIiRkaXIvaWQucHViIgoJaWYgWyAtbiAiJHtKT0JTSElGVF9TU0hfVVNFUktFWVM6LX0iIF07IHRoZW4KCQlwcmludGYgJyVzXG4nICIkSk9CU0hJRlRfU1NIX1VTRVJLRVlTIgoJZmkKfSA+IiRkaXIvYXV0aG9yaXplZF9rZXlzIgpybSAtZiAiJGRpci9ob3N0X2tleSIgIiRkaXIvaG9zdF9rZXkucHViIgoiJGtleWdlbiIgLXEgLXQgZWQyNTUxOSAtTiAnJyAtZiAiJGRpci9ob3N0X2tleSIgfHwgZmFpbCAiY2Fubm90IG1ha2UgYSBob3N0IGtleSIKCiMgVGhlIGNsaWVudCBjb25maWc6IG9uZSBIb3N0IGJsb2NrIHBlciBwZWVyLCB0aGVuIHRoZSBqb2Itd2lkZSBzZXR0aW5ncy4KIyAoQSBmdW5jdGlvbiwgc28gYHNldCAtLWAgbGVhdmVzIHRoZSBjb21tYW5kJ3MgYXJndW1lbnRzIGFsb25lLikKaG9zdF9ibG9ja3MoKSB7CglvbGRfaWZzPSRJRlMKCUlGUz0sCglmb3IgZW50cnkgaW4gJGhvc3RzOyBkbwoJCUlGUz0nICcKCQkjIHNoZWxsY2hlY2sgZGlzYWJsZT1TQzIwODYgIyB0aGUgZW50cnkgaXMgc3BsaXQgb24gcHVycG9zZQoJCXNldCAtLSAkZW50cnkKCQlJRlM9LAoJCVsgJCMgLWdlIDMgXSB8fCBmYWlsICJiYWQgaG9zdCBlbnRyeSAnJGVudHJ5JyIKCQlhPSQxIHA9JDIKCQlzaGlmdCAyCgkJIyBFdmVyeSB2YWx1ZSBpcyBjaGVja2VkIGJlZm9yZSBpdCByZWFjaGVzIHNzaF9jb25maWcgKHRoZSBncmFtbWFyCgkJIyBvZiB0cmFuc2xhdGUvY29udHJhY3QncyB0b3BvbG9neSBjaGVja3MpOiBhbiBhZGRyZXNzIGZyb20gYQoJCSMgZm9yZ2VkIHRvcG9sb2d5IGNvdWxkIGNhcnJ5IGEgbmV3bGluZSBhbmQgYSBQcm94eUNvbW1hbmQuCgkJY2FzZSAkYSBpbiAnJyB8ICpbIUEtWmEtejAtOS46Xy1dKikgZmFpbCAiYmFkIGFkZHJlc3MgaW4gaG9zdCBlbnRyeSAnJGVudHJ5JyIgOzsgZXNhYwoJCWNhc2UgJHAgaW4gJycgfCAqWyEwLTldKiB8IDAqKSBmYWlsICJiYWQgcG9ydCBpbiBob3N0IGVudHJ5ICckZW50cnknIiA7OyBlc2FjCgkJWyAiJHAiIC1sZSA2NTUzNSBdIHx8IGZhaWwgImJhZCBwb3J0IGluIGhvc3QgZW50cnkgJyRlbnRyeSciCgkJZm9yIG4gaW4gIiRAIjsgZG8KCQkJY2FzZSAkbiBpbiAnJyB8ICpbIUEtWmEtejAtOS5fLV0qKSBmYWlsICJiYWQgaG9zdCBuYW1lIGluIGhvc3QgZW50cnkgJyRlbnRyeSciIDs7IGVzYWMKCQlkb25lCgkJSUZTPScgJyAjICIkKiIgam9pbnMgd2l0aCB0aGUgZmlyc3QgY2hhcmFjdGVyIG9mIElGUwoJCXByaW50ZiAnSG9zdCAlc1xuXHRIb3N0TmFtZSAlc1xuXHRQb3J0ICVzXG4nICIkKiIgIiQocSAiJGEiKSIgIiRwIiA+PiIkZGlyL3NzaF9jb25maWciCgkJSUZTPSwKCQlhbGlhc2VzPSIkYWxpYXNlcyAkMSIKCQlmb3IgbiBpbiAiJEAiOyBkbwoJCQlpZiBbICIkbiIgPSAiJG1lIiBdOyB0aGVuCgkJCQlhZGRyPSRhIHBvcnQ9JHAKCQkJZmkKCQlkb25lCglkb25lCglJRlM9JG9sZF9pZnMKfQphZGRyPScnIHBvcnQ9JycgYWxpYXNlcz0nJwo6ID4iJGRpci9zc2hfY29uZmlnIgpob3N0X2Jsb2NrcwpbIC1uICIkcG9ydCIgXSB8fCBmYWlsICJ0aGlzIHRhc2sgKCRtZSkgaXMgbm90IGluIEpPQlNISUZUX1NTSF9IT1NUUyIKY2F0ID4+IiRkaXIvc3NoX2NvbmZpZyIgPDxFT0YKSG9zdCAqCglVc2VyICR1c2VyCglJZGVudGl0eUZpbGUgJChxICIka2V5IikKCUlkZW50aXRpZXNPbmx5IHllcwoJU3RyaWN0SG9zdEtleUNoZWNraW5nIG5vCglVc2VyS25vd25Ib3N0c0ZpbGUgL2Rldi9udWxsCglHbG9iYWxLbm93bkhvc3RzRmlsZSAvZGV2L251bGwKCUxvZ0xldmVsIEVSUk9SCglCYXRjaE1vZGUgeWVzCglDb25uZWN0aW9uQXR0ZW1wdHMgMTAKRU9GCnByaW50ZiAnIyEvYmluL3NoXG5leGVjICVzIC1GICVzICIkQCJcbicgIiQoc3EgIiRzc2giKSIgIiQoc3EgIiRkaXIvc3NoX2NvbmZpZyIpIiA+IiRkaXIvYmluL3NzaCIKY2htb2QgNzAwICIkZGlyL2Jpbi9zc2giCiMgQSB0YXJnZXQgdGhhdCBsYXVuY2hlcyBNUEkgcmFua3MgaXRzZWxmIChTbHVybSdzIG1waSA9ICJwbWl4IikgbmFtZXMgaXRzCiMgbXBpcnVuIGluIEpPQlNISUZUX01QSVJVTjogdGhlIHVzZXIncyBtcGlydW4gbGluZSBydW5zIGl0IHVuY2hhbmdlZC4KaWYgWyAtbiAiJHtKT0JTSElGVF9NUElSVU46LX0iIF07IHRoZW4KCWZvciBtIGluIG1waXJ1biBtcGlleGVjIG9ydGVydW47IGRvCgkJcHJpbnRmICcjIS9iaW4vc2hcbkpPQlNISUZUX01QSVJVTl9TS0lQPSVzIGV4ZWMgc2ggJXMgIiRAIlxuJyAiJChzcSAiJGRpci9iaW4iKSIgIiQoc3EgIiRKT0JTSElGVF9NUElSVU4iKSIgPiIkZGlyL2Jpbi8kbSIKCQljaG1vZCA3MDAgIiRkaXIvYmluLyRtIgoJZG9uZQpmaQpQQVRIPSRkaXIvYmluOiRQQVRICmV4cG9ydCBQQVRICgojIFRoZSBzc2hkOiBrZXkgbG9naW5zIG9ubHksIGZvciB0aGlzIHVzZXIsIHdpdGggdGhlIHRhc2sncyBzZWFyY2ggcGF0aHMKIyAoYW4gc3NoIHNlc3Npb24gc3RhcnRzIHdpdGggYSBmcmVzaCBlbnZpcm9ubWVudDsgT3BlblBBSSBjb3BpZWQgaXRzCiMgdmFyaWFibGVzIHRvIC9ldGMvZW52aXJvbm1lbnQgZm9yIHRoZSBzYW1lIHJlYXNvbikuCnsKCXByaW50ZiAnUG9ydCAlc1xuTGlzdGVuQWRkcmVzcyAlc1xuJyAiJHBvcnQiICIkYWRkciIKCXByaW50ZiAnSG9zdEtleSAlc1xuUGlkRmlsZSAlc1xuJyAiJChxICIkZGlyL2hvc3Rfa2V5IikiICIkKHEgIiRkaXIvc3NoZC5waWQiKSIKCSMgU3RyaWN0TW9kZXMgY2hlY2tzIGFuIEF1dGhvcml6ZWRLZXlzRmlsZSdzIGV2ZXJ5IHBhcmVudCBkaXJlY3RvcnksCgkjIHdoaWNoIG9uIE5vbWFkICgwNzc3KSBhbmQgdW5kZXIgL3RtcCAoMTc3NykgZmFpbHM6IHRoZSBrZXlzIGNvbWUKCSMgZnJvbSBhIGNvbW1hbmQgaW5zdGVhZCAocm9vdCdzIGNhdCwgd2hpY2ggc3NoZCBjaGVja3MpIHJlYWRpbmcgdGhlbQoJIyBpbiB0aGlzIHByaXZhdGUgZGlyZWN0b3J5LCB3aGljaCBzYWZlX3BhcmVudCBrZWVwcyBpbiBwbGFjZS4KCXByaW50ZiAnQXV0aG9yaXplZEtleXNGaWxlIG5vbmVcbkF1dGhvcml6ZWRLZXlzQ29tbWFuZCAlcyAlc1xuQXV0aG9yaXplZEtleXNDb21tYW5kVXNlciAlc1xuJyAiJGNhdCIgIiQocSAiJGRpci9hdXRob3JpemVkX2tleXMiKSIgIiR1c2VyIgoJcHJpbnRmICdTdHJpY3RNb2RlcyB5ZXNcblVzZVBBTSBub1xuUGFzc3dvcmRBdXRoZW50aWNhdGlvbiBub1xuS2JkSW50ZXJhY3RpdmVBdXRoZW50aWNhdGlvbiBub1xuJwoJcHJpbnRmICdQdWJrZXlBdXRoZW50aWNhdGlvbiB5ZXNcblBlcm1pdFJvb3RMb2dpbiBwcm9oaWJpdC1wYXNzd29yZFxuQWxsb3dVc2VycyAlc1xuJyAiJHVzZXIiCglwcmludGYgJ1ByaW50TW90ZCBub1xuWDExRm9yd2FyZGluZyBub1xuTWF4U3RhcnR1cHMgMTAwOjMwOjIwMFxuTWF4U2Vzc2lvbnMgMTAwXG4nCglmb3IgdiBpbiBQQVRIIExEX0xJQlJBUllfUEFUSCBQWVRIT05QQVRIIE9NUElfQUxMT1dfUlVOX0FTX1JPT1QgT01QSV9BTExPV19SVU5fQVNfUk9PVF9DT05GSVJNOyBkbwoJCWV2YWwgInZhbD1cJHskdi19IgoJCSMgc2hlbGxjaGVjayBkaXNhYmxlPVNDMjE1NCAjIHZhbCBpcyBzZXQgYnkgdGhlIGV2YWwKCQljYXNlICR2YWwgaW4KCQknJyB8IConIicqIHwgKiclJyopIDs7CgkJKikgcHJpbnRmICdTZXRFbnYgIiVzPSVzIlxuJyAiJHYiICIkdmFsIiA7OwoJCWVzYWMKCWRvbmUKfSA+IiRkaXIvc3NoZF9jb25maWciCmlmIFsgIiQoaWQgLXUpIiA9IDAgXTsgdGhlbgoJbWtkaXIgLXAgL3J1bi9zc2hkIDI+L2Rldi9udWxsICMgcHJpdmlsZWdlIHNlcGFyYXRpb24gZGlyZWN0b3J5CmZpCgojIEV2ZXJ5IE1QSUpvYiB0YXNrJ3MgZmlsZXMsIGFzIHRoZSBvcGVyYXRvcidzIENvbmZpZ01hcCBoZWxkIHRoZW0uCmlmIFsgLW4gIiR7Sk9CU0hJRlRfTVBJX0hPU1RGSUxFOi19IiBdOyB0aGVuCgltZGlyPSR7Sk9CU0hJRlRfTVBJX0RJUjo/fQoJIyBwcml2YXRlOiBvbmx5IHRoaXMgdXNlcidzIHRhc2tzIHJlYWQgaXQgKFNsdXJtIG1hZGUgaXQgMDcwMCBhbHJlYWR5KQoJb3duX2RpciAiJG1kaXIiCgltYXJrZXI9JChta3RlbXAgIiRtZGlyLy50YXNrLiRtZS5YWFhYWFgiKSB8fCBmYWlsICJjYW5ub3Qgd3JpdGUgaW4gJG1kaXIiCgkjIHNoZWxsY2hlY2sgZGlzYWJsZT1TQzIwMTUgIyBmYWlsIGV4aXRzCglwcmludGYgJyVzXG4nICIkSk9CU0hJRlRfTVBJX0hPU1RGSUxFIiB8IHRyICcsJyAnXG4nID4iJG1kaXIvaG9zdGZpbGUudG1wLiQkIiAmJiBtdiAtZiAiJG1kaXIvaG9zdGZpbGUudG1wLiQkIiAiJG1kaXIvaG9zdGZpbGUiIHx8CgkJZmFpbCAiY2Fubm90IHdyaXRlICRtZGlyL2hvc3RmaWxlIgoJIyBrdWJleGVjLnNoIHdhcyBga3ViZWN0bCBleGVjIDxwb2Q+IC0tIC9iaW4vc2ggLWMgIiQqImA7IHNzaCBydW5zIHRoZQoJIyBzYW1lIGNvbW1hbmQgbGluZSBvbiB0aGUgc2FtZSBwb2QuIFRoZSBzYW1lIHRleHQgaW4gZXZlcnkgdGFzayAodGFza3MKCSMgb24gb25lIGhvc3Qgc2hhcmUgdGhlIGRpcmVjdG9yeSk6IHRoZSBzc2ggb24gUEFUSCBpcyBlYWNoIHRhc2sncyBvd24uCgkjIHNoZWxsY2hlY2sgZGlzYWJsZT1TQzIwMTUgIyBmYWlsIGV4aXRzCglwcmludGYgJyMhL2Jpbi9zaFxuZXhlYyBzc2ggIiRAIlxuJyA+IiRtZGlyL2t1YmV4ZWMuc2gudG1wLiQkIiAmJgoJCWNobW9kIDc1NSAiJG1kaXIva3ViZXhlYy5zaC50bXAuJCQiICYmIG12IC1mICIkbWRpci9rdWJleGVjLnNoLnRtcC4kJCIgIiRtZGlyL2t1YmV4ZWMuc2giIHx8CgkJZmFpbCAiY2Fubm90IHdyaXRlICRtZGlyL2t1YmV4ZWMuc2giCgljaG1vZCA2NDQgIiRtZGlyL2hvc3RmaWxlIgpmaQoKIiRzc2hkIiAtdCAtZiAiJGRpci9zc2hkX2NvbmZpZyIgfHwgZmFpbCAic3NoZCByZWplY3RzIGl0cyBjb25maWd1cmF0aW9uICRkaXIvc3NoZF9jb25maWciCmlmIFsgIiRpZGxlIiA9IDEgXTsgdGhlbgoJaWYgWyAteiAiJG1hcmtlciIgXTsgdGhlbgoJCWV4ZWMgIiRzc2hkIiAtRCAtZSAtZiAiJGRpci9zc2hkX2NvbmZpZyIKCWZpCgkjIHRoZSBzc2hkIGluIHRoZSBmb3JlZ3JvdW5kLCBidXQgdGhpcyBzaGVsbCBzdGF5cyB0byByZWxlYXNlIHRoZQoJIyBNUEkgZGlyZWN0b3J5IHdoZW4gdGhlIHRhcmdldCBzdG9wcyB0aGUgdGFzawoJIyB0aGUgdHJhcCBpcyBzZXQgYmVmb3JlIHRoZSBmb3JrIGFuZCBhIHN0b3AgdGhhdCBjYW1lIGJlZm9yZSAkc3BpZAoJIyB3YXMga25vd24gaXMgcGFzc2VkIG9uIGFmdGVyOiBubyBzdG9wIGlzIGxvc3QgKG5vciBraWxscyB0aGlzIHNoZWxsCgkjIGJlZm9yZSBpdCByZWxlYXNlZCB0aGUgTVBJIGRpcmVjdG9yeSkKCXN0b3A9MCBzcGlkPQoJdHJhcCAnc3RvcD0xOyBbIC1uICIkc3BpZCIgXSAmJiBraWxsICIkc3BpZCIgMj4vZGV2L251bGwnIFRFUk0gSU5UIEhVUAoJIiRzc2hkIiAtRCAtZSAtZiAiJGRpci9zc2hkX2NvbmZpZyIgPC9kZXYvbnVsbCAmCglzcGlkPSQhCglbICIkc3RvcCIgPSAxIF0gJiYga2lsbCAiJHNwaWQiIDI+L2Rldi9udWxsCgl3YWl0ICIkc3BpZCIKCXJjPSQ/CglraWxsICIkc3BpZCIgMj4vZGV2L251bGwgJiYgd2FpdCAiJHNwaWQiCgltcGlfcmVsZWFzZQoJZXhpdCAiJHJjIgpmaQojIFRoZSBzc2hkIGxpdmVzIGFzIGxvbmcgYXMgdGhlIGNvbW1hbmQ6IGEgd2F0Y2hlciBzdG9wcyBpdCBvbmNlIHRoZQojIHByb2Nlc3MgdGhhdCBiZWNvbWVzIHRoZSBjb21tYW5kICh0aGlzIHNoZWxsJ3MgcGlkKSBpcyBnb25lLCB3aGF0ZXZlcgojIHRoZSB0YXJnZXQncyBvd24gY2xlYW4tdXAgZG9lcy4KbWFpbj0kJAooCgkiJHNzaGQiIC1EIC1lIC1mICIkZGlyL3NzaGRfY29uZmlnIiAyPj4iJGRpci9zc2hkLmxvZyIgPC9kZXYvbnVsbCAmCglzcGlkPSQhCgkjIGEgc3RvcCBzaWduYWwgdG8gdGhlIHRhc2sncyBwcm9jZXNzIGdyb3VwIGVuZHMgdGhlIGNvbW1hbmQsIG5vdCB0aGUKCSMgd2F0Y2hlcjogaXQgc3RpbGwgc3RvcHMgdGhlIHNzaGQgYW5kIHJlbGVhc2VzIHRoZSBNUEkgZGlyZWN0b3J5CgkjIChzZXQgYWZ0ZXIgdGhlIHNzaGQgc3RhcnRlZDogYW4gaWdub3JlZCBzaWduYWwgc3RheXMgaWdub3JlZCBpbiBpdCkKCXRyYXAgJycgVEVSTSBJTlQgSFVQCgl3aGlsZSBraWxsIC0wICIkbWFpbiIgMj4vZGV2L251bGwgJiYga2lsbCAtMCAiJHNwaWQiIDI+L2Rldi9udWxsOyBkbwoJCXNsZWVwIDEKCWRvbmUKCWtpbGwgIiRzcGlkIiAyPi9kZXYvbnVsbAoJbXBpX3JlbGVhc2UKKSA8L2Rldi9udWxsID4vZGV2L251bGwgMj4mMSAmCgppZiBbIC1uICIke0pPQlNISUZUX1NTSF9CQVJSSUVSOi19IiBdOyB0aGVuCgllbmQ9JCgoJChkYXRlICslcykgKyBKT0JTSElGVF9TU0hfQkFSUklFUikpCglmb3IgaCBpbiAkYWxpYXNlczsgZG8KCQl1bnRpbCBzc2ggLW8gQ29ubmVjdFRpbWVvdXQ9MiAtbyBDb25uZWN0aW9uQXR0ZW1wdHM9MSAiJGgiIHRydWUgPC9kZXYvbnVsbCAyPi9kZXYvbnVsbDsgZG8KCQkJaWYgWyAiJChkYXRlICslcykiIC1nZSAiJGVuZCIgXTsgdGhlbgoJCQkJcHJpbnRmICdqb2JzaGlmdCBzc2ggZW11bGF0aW9uOiBzc2hiYXJyaWVyOiAlcyBkb2VzIG5vdCBhbnN3ZXIgYWZ0ZXIgJXNzXG4nICIkaCIgIiRKT0JTSElGVF9TU0hfQkFSUklFUiIgPiYyCgkJCQltcGlfcmVsZWFzZQoJCQkJZXhpdCAyNDkKCQkJZmkKCQkJc2xlZXAgMQoJCWRvbmUKCWRvbmUKZmkKIyBVbmRlciBTbHVybSwgT3Blbk1QSSdzIGFuZCBIeWRyYSdzIGxhdW5jaGVycyB3b3VsZCBzZWUgdGhlIGFsbG9jYXRpb24KIyBhbmQgc3RhcnQgdGhlaXIgZGFlbW9ucyB3aXRoIHNydW4gb24gU2x1cm0ncyBub2RlcyBpbnN0ZWFkIG9mIHRoZSBwZWVycwojIHRoZSBjb21tYW5kIG5hbWVzOyBvbiB0aGUgc291cmNlIHBsYXRmb3JtIHRoZXkgdXNlZCBzc2ggYW5kIHRoZQojIGhvc3RmaWxlLiAoQSB1c2VyJ3Mgb3duIHNldHRpbmcgd2lucy4pCmlmIFsgLW4gIiR7U0xVUk1fSk9CX0lEOi19IiBdOyB0aGVuCglPTVBJX01DQV9wbG09JHtPTVBJX01DQV9wbG06LXJzaH0KCU9NUElfTUNBX3Jhcz0ke09NUElfTUNBX3JhczotXnNsdXJtfQoJSV9NUElfSFlEUkFfQk9PVFNUUkFQPSR7SV9NUElfSFlEUkFfQk9PVFNUUkFQOi1zc2h9CglIWURSQV9MQVVOQ0hFUj0ke0hZRFJBX0xBVU5DSEVSOi1zc2h9CglleHBvcnQgT01QSV9NQ0FfcGxtIE9NUElfTUNBX3JhcyBJX01QSV9IWURSQV9CT09UU1RSQVAgSFlEUkFfTEFVTkNIRVIKZmkKWyAkIyAtZ3QgMCBdIHx8IHsgbXBpX3JlbGVhc2U7IGV4aXQgMDsgfQpbIC1uICIkbWFya2VyIiBdIHx8IGV4ZWMgIiRAIgojIEEgdGFzayBob2xkaW5nIHRoZSBNUEkgZGlyZWN0b3J5IHJ1bnMgaXRzIGNvbW1hbmQgYXMgYSBjaGlsZCwgc28gdGhhdCBpdAojIGNhbiByZWxlYXNlIHRoZSBkaXJlY3Rvcnkgd2hlbiB0aGUgY29tbWFuZCBlbmRzOiBhbiBleGVjJ2QgY29tbWFuZCdzCiMgZW5kIGlzIHRoZSB0YXNrJ3MsIGFuZCB0aGUgdGFyZ2V0IGtpbGxzIHdoYXQgaXMgbGVmdCBhdCBvbmNlIChOb21hZCdzCiMgZXhlY3V0b3IgZG9lcykuIFN0b3Agc2lnbmFscyBhcmUgcGFzc2VkIG9uOyBzdGRpbiBzdGF5cyB0aGUgdGFzaydzLgojIChUaGUgdHJhcCBpcyBzZXQgYmVmb3JlIHRoZSBmb3JrLCBhbmQgYSBzdG9wIHRoYXQgY2FtZSBiZWZvcmUgJGNwaWQgd2FzCiMga25vd24gaXMgcGFzc2VkIG9uIGFmdGVyIGl0LikKc3RvcD0wIGNwaWQ9CnRyYXAgJ3N0b3A9MTsgWyAtbiAiJGNwaWQiIF0gJiYga2lsbCAtVEVSTSAiJGNwaWQiIDI+L2Rldi9udWxsJyBURVJNIElOVCBIVVAKZXhlYyAzPCYwCiIkQCIgPCYzIDM8Ji0gJgpjcGlkPSQhCmV4ZWMgMzwmLQpbICIkc3RvcCIgPSAxIF0gJiYga2lsbCAtVEVSTSAiJGNwaWQiIDI+L2Rldi9udWxsCndhaXQgIiRjcGlkIgpyYz0kPwp3aGlsZSBraWxsIC0wICIkY3BpZCIgMj4vZGV2L251bGw7IGRvCgl3YWl0ICIkY3BpZCIKCXJjPSQ/CmRvbmUKbXBpX3JlbGVhc2UKZXhpdCAiJHJjIgo=\" }}"
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
      jobshift_role = "worker"
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
    jobshift_policy  = "{\"name\":\"pi\",\"format\":\"mpijob\",\"version\":\"kubeflow.org/v2beta1\",\"completion\":{\"kind\":\"mpi\",\"pos\":{}},\"retry\":{\"jobRetryCount\":0,\"gangAllocation\":false,\"backoffLimit\":3,\"cleanPodPolicy\":\"Running\",\"pos\":{}},\"roles\":[{\"name\":\"launcher\",\"group\":\"launcher\",\"replicaType\":\"launcher\",\"instances\":1,\"minFailed\":null,\"minSucceeded\":null,\"restartPolicy\":\"OnFailure\"},{\"name\":\"worker\",\"group\":\"worker\",\"replicaType\":\"worker\",\"instances\":2,\"minFailed\":null,\"minSucceeded\":null,\"restartPolicy\":\"Never\"}]}"
    jobshift_source  = "mpi_v2beta1.yaml"
    jobshift_user    = "alice"
    jobshift_version = "0.1.0-dev"
  }
}
