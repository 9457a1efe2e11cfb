# jobshift: unwatched: for nomad job run; jobshift convert -watched writes what jobshift run submits
#
# shape: unwatched (nothing outside the job: nomad job run, run -detach); rendezvous barrier
# group ps (raw_exec): env template over registrations; judged by none in the job (a controller or watch -enforce); task namespace files by templates
#   task jobshift-barrier (prestart)
#   task main > task namespace > restart loop > command
# group worker (raw_exec): env template over registrations; judged by none in the job (a controller or watch -enforce); task namespace files by templates
#   task jobshift-barrier (prestart)
#   task main > task namespace > restart loop > command
# why: rendezvous barrier: nobody watches the job to write a snapshot (convert -watched, or run, gives the snapshot)
# why (ps): env: template over the group services (no snapshot)
# why (ps): task namespace: the command runs as a plain process, which gets its platform host name and files from the wrapper
# why (ps): task namespace files by templates: nothing runs in the task before the wrapper to write them
# why (worker): env: template over the group services (no snapshot)
# why (worker): task namespace: the command runs as a plain process, which gets its platform host name and files from the wrapper
# why (worker): task namespace files by templates: nothing runs in the task before the wrapper to write them

job "alice~mesh" {
  type        = "batch"
  datacenters = ["dc1"]
  group "ps" {
    count = 2
    task "jobshift-barrier" {
      driver = "raw_exec"
      lifecycle {
        hook = "prestart"
      }
      config {
        args    = ["-c", "n=0\nwhile :; do\n  l=\n  IFS= read -r l < \"$NOMAD_TASK_DIR/barrier\" 2>/dev/null\n  [ \"$l\" = READY ] && exit 0\n  n=$((n+1))\n  if [ \"$n\" -gt 1200 ]; then\n    echo \"jobshift: barrier timeout: after 2m0s not every task of job alice~mesh was placed and registered; still missing: $l. Check 'nomad job status alice~mesh' for allocations that could not be placed (not enough CPU, memory or GPUs) or that ended early; the timeout is nomad.barrier_timeout in the site config.\" >&2\n    exit 1\n  fi\n  sleep 0.1\ndone\n"]
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
{{- range $s := nomadService "alice-mesh-ps-synport-0" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "0/" .) true }}{{ end }}{{ end }}{{ end -}}
{{- range $i := loop 2 }}{{ if not (scratch.Key (print "0/idx-" $i)) }}{{ $missing = printf "%s %s-%d" $missing "ps" $i }}{{ end }}{{ end -}}
{{- range $s := nomadService "alice-mesh-worker-synport-0" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "1/" .) true }}{{ end }}{{ end }}{{ end -}}
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
        args    = ["$${NOMAD_TASK_DIR}/jobshift-taskns.sh", "$${NOMAD_TASK_DIR}/jobshift-taskns.spec", "--", "/bin/sh", "-c", "_t_kind=pai\n_t_gang=0\n_t_bl=-1\n_t_classes=uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuutuuuuuuuuuuuuuuuuuuuuuuutuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuutuupupuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu\n_t_bo_init=10000 _t_bo_max=300000\n_t_tretry_0=0\n_t_tretry_1=0\n_t_role=0\n_s_frac=\n_s_pid=\njs_counter_add() {\n\t_l_n=0\n\tuntil mkdir \"$1.lock\" 2>/dev/null; do\n\t\tsleep 0.05\n\t\t_l_n=$((_l_n + 1))\n\t\t[ \"$_l_n\" -gt 200 ] && rmdir \"$1.lock\" 2>/dev/null\n\tdone\n\t_l_v=$(cat \"$1\" 2>/dev/null || echo 0)\n\techo $((_l_v + 1)) >\"$1\"\n\trmdir \"$1.lock\"\n}\njs_nth_is() {\n\t_q_p=\n\t_q_k=1\n\twhile [ \"$_q_k\" -lt \"$2\" ]; do\n\t\t_q_p=\"$_q_p?\"\n\t\t_q_k=$((_q_k + 1))\n\tdone\n\tcase $1 in\n\t$_q_p\"$3\"*) return 0 ;;\n\tesac\n\treturn 1\n}\njs_restart() {\n\tcase $_t_kind in\n\tpai)\n\t\t[ \"$_t_gang\" = 1 ] && return 1\n\t\t[ \"$2\" = 0 ] && return 1\n\t\tif [ \"$2\" -ge 0 ] && [ \"$2\" -le 255 ]; then\n\t\t\tjs_nth_is \"$_t_classes\" $(($2 + 1)) t && return 0\n\t\t\tjs_nth_is \"$_t_classes\" $(($2 + 1)) p && return 1\n\t\tfi\n\t\teval \"_r_max=\\$_t_tretry_$1\"\n\t\t_r_f=$3/restarts.$1.$4\n\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\tif [ \"$_r_max\" = -1 ] || [ \"$_r_so\" -lt \"$_r_max\" ]; then\n\t\t\tjs_counter_add \"$_r_f\"\n\t\t\treturn 0\n\t\tfi\n\t\treturn 1\n\t\t;;\n\ttf | pytorch)\n\t\t[ \"$2\" -ge 0 ] && [ \"$2\" -le 255 ] || return 1\n\t\teval \"_r_rs=\\$_t_rs_$1\"\n\t\tjs_nth_is \"$_r_rs\" $(($2 + 1)) 1 || return 1\n\t\t_r_f=$3/restarts.job\n\t\tif [ \"$_t_bl\" -ge 0 ]; then\n\t\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\t\t[ $((_r_so + 1)) -ge \"$_t_bl\" ] && return 1\n\t\tfi\n\t\tjs_counter_add \"$_r_f\"\n\t\treturn 0\n\t\t;;\n\tesac\n\treturn 1\n}\njs_backoff() {\n\tif [ \"$1\" -le 0 ] || [ \"$2\" -gt $((2 * _t_bo_max)) ]; then\n\t\t_b_wait=0\n\t\t_b_streak=1\n\t\treturn\n\tfi\n\t_b_wait=$_t_bo_init\n\t_b_n=1\n\twhile [ \"$_b_n\" -lt \"$1\" ] && [ \"$_b_wait\" -lt \"$_t_bo_max\" ]; do\n\t\t_b_wait=$((_b_wait * 2))\n\t\t_b_n=$((_b_n + 1))\n\tdone\n\t[ \"$_b_wait\" -gt \"$_t_bo_max\" ] && _b_wait=$_t_bo_max\n\t_b_streak=$(($1 + 1))\n}\njs_now_ms() {\n\t_n_ns=$(date +%s%N)\n\tcase $_n_ns in\n\t'' | *[!0-9]*) echo $(($(date +%s) * 1000)) ;;\n\t*) echo $((_n_ns / 1000000)) ;;\n\tesac\n}\njs_sleep_ms() {\n\t[ \"$_k_stop\" = 1 ] && return 0\n\tif [ -z \"$_s_frac\" ]; then\n\t\t_s_frac=0\n\t\tsleep 0.001 2>/dev/null && _s_frac=1\n\tfi\n\tif [ \"$_s_frac\" = 1 ]; then\n\t\tsleep \"$(($1 / 1000)).$(printf '%03d' $(($1 % 1000)))\" &\n\telse\n\t\tsleep $((($1 + 999) / 1000)) &\n\tfi\n\t_s_pid=$!\n\t[ \"$_k_stop\" = 1 ] && kill -KILL \"$_s_pid\" 2>/dev/null\n\twait \"$_s_pid\"\n\tkill -KILL \"$_s_pid\" 2>/dev/null\n\twait \"$_s_pid\" 2>/dev/null\n\t_s_pid=\n\treturn 0\n}\n_k_stop=0\n_k_child=\n_k_setsid=\ncommand -v setsid >/dev/null 2>&1 && _k_setsid=setsid\ntrap '_k_stop=1; [ -n \"$_k_child\" ] && { kill -TERM \"-$_k_child\" 2>/dev/null || kill -TERM \"$_k_child\" 2>/dev/null; }; [ -n \"$_s_pid\" ] && kill -KILL \"$_s_pid\" 2>/dev/null' TERM INT\n_k_dir=$NOMAD_TASK_DIR\n[ -n \"$_k_dir\" ] || _k_dir=.\n_k_i=$NOMAD_ALLOC_INDEX\n[ -n \"$_k_i\" ] || _k_i=0\n_k_streak=0\n_k_rc=0\nwhile :; do\n\t_k_t0=$(js_now_ms)\n\t$_k_setsid \"$@\" &\n\t_k_child=$!\n\t[ \"$_k_stop\" = 1 ] && { kill -TERM \"-$_k_child\" 2>/dev/null || kill -TERM \"$_k_child\" 2>/dev/null; }\n\twait \"$_k_child\"\n\t_k_rc=$?\n\twhile kill -0 \"$_k_child\" 2>/dev/null; do\n\t\twait \"$_k_child\"\n\t\t_k_rc=$?\n\tdone\n\tif [ \"$_k_stop\" = 1 ]; then\n\t\twhile kill -0 \"-$_k_child\" 2>/dev/null; do sleep 0.1; done\n\tfi\n\t_k_child=\n\t_k_t1=$(js_now_ms)\n\techo \"$_k_t0 $_k_t1 $_k_rc\" >>\"$_k_dir/jobshift-runs\"\n\t[ \"$_k_stop\" = 1 ] && break\n\tjs_restart \"$_t_role\" \"$_k_rc\" \"$_k_dir\" \"$_k_i\" || break\n\tjs_backoff \"$_k_streak\" $((_k_t1 - _k_t0))\n\t_k_streak=$_b_streak\n\tprintf 'jobshift: task exited with %s; restarting it in place after %s ms (kubelet CrashLoopBackOff)\\n' \"$_k_rc\" \"$_b_wait\" >&2\n\tif [ \"$_b_wait\" -gt 0 ]; then\n\t\tjs_sleep_ms \"$_b_wait\"\n\t\t[ \"$_k_stop\" = 1 ] && break\n\tfi\ndone\nexit \"$_k_rc\"\n", "jobshift-restart", "bash", "-c", "eval \"$1\" || exit $?", "_", "python3 mesh.py --ps_hosts=$PAI_TASK_ROLE_ps_HOST_LIST"]
        command = "sh"
      }
      env {
        CUDA_VISIBLE_DEVICES = ""
      }
      resources {
        cpu    = 100
        memory = 256
      }
      template {
        destination = "local/jobshift.env"
        data        = <<EOT
{{- $h := "" -}}{{- $all := nomadService "alice-mesh-ps-synport-0" -}}{{- range $i := loop 2 -}}{{- range $all -}}{{- if and (eq .JobID (env "NOMAD_JOB_ID")) (.Tags | contains (printf "idx-%d" $i)) -}}{{- if ne $h "" }}{{ $h = printf "%s," $h }}{{ end -}}{{- $h = printf "%s%s:%d" $h .Address .Port -}}{{- end -}}{{- end -}}{{- end }}
JS_HOSTS_PS={{ $h }}
{{- $h := "" -}}{{- $all := nomadService "alice-mesh-worker-synport-0" -}}{{- range $i := loop 2 -}}{{- range $all -}}{{- if and (eq .JobID (env "NOMAD_JOB_ID")) (.Tags | contains (printf "idx-%d" $i)) -}}{{- if ne $h "" }}{{ $h = printf "%s," $h }}{{ end -}}{{- $h = printf "%s%s:%d" $h .Address .Port -}}{{- end -}}{{- end -}}{{- end }}
JS_HOSTS_WORKER={{ $h }}
JS_ROLE=ps
JS_INDEX={{ env "NOMAD_ALLOC_INDEX" }}
EOT
        change_mode = "noop"
        once        = true
        env         = true
      }
      template {
        destination = "local/jobshift-taskns.sh"
        data        = "{{ base64Decode \"IyBqb2JzaGlmdCB0YXNrIG5hbWVzcGFjZTogd2hhdCBhIHBvZCBvciBjb250YWluZXIgZ2F2ZSBlYWNoIHRhc2sgYmVzaWRlcwojIGl0cyBjb21tYW5kLCByZWJ1aWx0IGZvciBhIHBsYWluIHByb2Nlc3MgKFNsdXJtIHN0ZXAsIE5vbWFkIHJhd19leGVjIG9yCiMgZXhlYyB0YXNrLCBsb2NhbCBwcm9jZXNzKToKIyAgIC0gaXRzIG93biBob3N0IG5hbWUgKGhvc3RuYW1lLCBnZXRob3N0bmFtZSgpLCAkSE9TVE5BTUUpLCBpbiBhIHByaXZhdGUKIyAgICAgVVRTIG5hbWVzcGFjZTsKIyAgIC0gYW4gL2V0Yy9ob3N0cyB3aGVyZSBpdHMgb3duIGFuZCBpdHMgcGVlcnMnIHBsYXRmb3JtIG5hbWVzIHJlc29sdmUgdG8KIyAgICAgdGhlaXIgYWRkcmVzc2VzLCBhbmQgZGF0YSBhbmQgcGxhdGZvcm0gZmlsZXMgYXQgdGhlIGpvYidzIG93biBwYXRocywKIyAgICAgaW4gYSBwcml2YXRlIG1vdW50IG5hbWVzcGFjZSAobm90aGluZyByZWFjaGVzIHRoZSBob3N0J3MgbW91bnQgdGFibGUpOwojICAgLSB0aGUgaW50ZXJmYWNlIGNhcnJ5aW5nIHRoZSB0YXNrJ3MgYWRkcmVzcywgZm9yIHRoZSBjb2xsZWN0aXZlCiMgICAgIGxpYnJhcmllcyAoT3Blbk1QSSwgR2xvbywgTkNDTCksIHVubGVzcyB0aGUgam9iIHNldCB0aGVtIGl0c2VsZi4KIyBUaGVuIGl0IGV4ZWNzIHRoZSBjb21tYW5kIHdpdGggaXRzIGFyZ3VtZW50cyB1bmNoYW5nZWQuCiMKIyBVc2FnZTogc2ggdGFza25zLnNoIFNQRUMgLS0gY29tbWFuZCBbYXJncy4uLl0KIyBTUEVDIGhvbGRzIG9uZSBpdGVtIHBlciBsaW5lLCBmaWVsZHMgc2VwYXJhdGVkIGJ5IG9uZSBUQUIgKGRyaXZlcnMvdGFza25zCiMgd3JpdGVzIGl0IGFuZCByZWZ1c2VzIHZhbHVlcyBob2xkaW5nIGEgVEFCIG9yIGEgbmV3bGluZSk6CiMgICBtb2RlICAgIHJvb3QgfCB1c2VyIHwgbm9uZSB8IGF1dG8KIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICByb290OiB1bnNoYXJlIHRoZSBtb3VudCBhbmQgVVRTIG5hbWVzcGFjZXM7CiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgdXNlcjogdGhlIHNhbWUgaW5zaWRlIGEgdXNlciBuYW1lc3BhY2UKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAodW5wcml2aWxlZ2VkKSwgdGhlIGNvbW1hbmQgdGhlbiBydW5zCiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgdW5kZXIgdGhlIGNhbGxlcidzIG93biB1aWQgYW5kIGdpZCBhZ2FpbjsKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICBub25lOiBvbmx5IHRoZSBpbnRlcmZhY2UgdmFyaWFibGVzOwojICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIGF1dG86IHRoZSBmaXJzdCBvZiByb290IGFuZCB1c2VyIHRoaXMKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICBub2RlIGFsbG93cywgZWxzZSBub25lIHdpdGggYSB3YXJuaW5nCiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgKHJlZnVzZWQgd2hlbiB0aGUgc3BlYyBoYXMgYSBiaW5kKQojICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIChhIHRhcmdldCB0aGF0IGtub3dzIG5vdGhpbmcgb2YgaXRzCiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgbm9kZXMgd2hlbiBpdCByZW5kZXJzOiBOb21hZCkKIyAgIHNjcmF0Y2ggRElSICAgICAgICAgICAgICAgICAgIHRoaXMgc3RhcnQncyBwcml2YXRlIGRpcmVjdG9yeQojICAgaG9zdG5hbWUgTkFNRQojICAgaG9zdCAgICBBRERSIE5BTUUuLi4gICAgICAgICAgYW4gL2V0Yy9ob3N0cyBsaW5lIChuYW1lcyBzcGFjZS1zZXBhcmF0ZWQpCiMgICBiaW5kICAgIHJvfHJ3IFNSQyBEU1QgICAgICAgICBhIGRpcmVjdG9yeSBvciBmaWxlIGF0IHRoZSBqb2IncyBwYXRoCiMgICBhZGRyICAgIEFERFIgICAgICAgICAgICAgICAgICB0aGUgdGFzaydzIG93biBhZGRyZXNzIChhbiBJUCwgb3IgYSBuYW1lCiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgcmVzb2x2ZWQgd2l0aCBnZXRlbnQpCiMgRXhpdCBjb2RlIDEyNyB3aGVuIHRoZSB2aWV3IGNhbm5vdCBiZSBidWlsdCAodGhlIGNvbW1hbmQgbmV2ZXIgcmFuKS4KCnNldCAtdQpmYWlsKCkgewoJcHJpbnRmICdqb2JzaGlmdCB0YXNrIG5hbWVzcGFjZTogJXNcbicgIiQqIiA+JjIKCWV4aXQgMTI3Cn0KWyAkIyAtZ2UgMyBdICYmIFsgIiQyIiA9IC0tIF0gfHwgZmFpbCAidXNhZ2U6IHRhc2tucy5zaCBTUEVDIC0tIGNvbW1hbmQgW2FyZ3MuLi5dIgpzcGVjPSQxCnNoaWZ0IDIKdGFiPSQocHJpbnRmICdcdCcpCgojIGdldCBLRVkgcHJpbnRzIHRoZSBmaXJzdCB2YWx1ZSBvZiBLRVkgKHRoZSByZXN0IG9mIGl0cyBsaW5lKS4KZ2V0KCkgewoJd2hpbGUgSUZTPSByZWFkIC1yIGxpbmU7IGRvCgkJY2FzZSAkbGluZSBpbiAiJDEkdGFiIiopCgkJCXByaW50ZiAnJXNcbicgIiR7bGluZSMqIiR0YWIifSIKCQkJcmV0dXJuIDAKCQkJOzsKCQllc2FjCglkb25lIDwiJHNwZWMiCglyZXR1cm4gMQp9Cgptb2RlPSQoZ2V0IG1vZGUpIHx8IGZhaWwgIm5vIG1vZGUgaW4gJHNwZWMiCmluc2lkZT0ke0pPQlNISUZUX1RBU0tOU19JTlNJREU6LX0KaWYgWyAiJG1vZGUiID0gYXV0byBdICYmIFsgLXogIiRpbnNpZGUiIF07IHRoZW4KCW1vZGU9bm9uZQoJaWYgWyAiJChpZCAtdSkiID0gMCBdICYmIHVuc2hhcmUgLS1tb3VudCAtLXV0cyAtLXByb3BhZ2F0aW9uIHByaXZhdGUgdHJ1ZSAyPi9kZXYvbnVsbDsgdGhlbgoJCW1vZGU9cm9vdAoJZWxpZiB1bnNoYXJlIC0tdXNlciAtLW1hcC1yb290LXVzZXIgLS1tb3VudCAtLXV0cyB0cnVlIDI+L2Rldi9udWxsOyB0aGVuCgkJbW9kZT11c2VyCgllbGlmIFsgLW4gIiQoZ2V0IGhvc3RuYW1lKSIgXTsgdGhlbgoJCXByaW50ZiAnJXNcbicgImpvYnNoaWZ0OiB3YXJuaW5nOiB0aGlzIHRhc2sga2VlcHMgdGhlIG5vZGUncyBob3N0IG5hbWUsIG5vdCAkKGdldCBob3N0bmFtZSkgKG5vIHByaXZhdGUgVVRTIG5hbWVzcGFjZTogbm90IHJvb3QsIGFuZCB1bnByaXZpbGVnZWQgdXNlciBuYW1lc3BhY2VzIGFyZSBub3QgYWxsb3dlZCk7IE9wZW5NUEkncyBzaGFyZWQtbWVtb3J5IHRyYW5zcG9ydCwgTkNDTCBhbmQgSG9yb3ZvZCB0YWtlIHRhc2tzIHdpdGggb25lIGhvc3QgbmFtZSBmb3Igb25lIG5vZGU7IGFsbG93IHRoZW0gb24gdGhlIG5vZGVzIChzeXNjdGwga2VybmVsLnVucHJpdmlsZWdlZF91c2VybnNfY2xvbmU9MSwgdXNlci5tYXhfdXNlcl9uYW1lc3BhY2VzID4gMCkgb3IgcnVuIHRoZSB0YXNrIGluIGEgY29udGFpbmVyIiA+JjIKCWZpCglpZiBbICIkbW9kZSIgPSBub25lIF0gJiYgYmluZD0kKGdldCBiaW5kKTsgdGhlbgoJCSMgZGF0YSBvciBhIGZpbGUgdGhlIGpvYiBuZWVkcyBhdCBpdHMgcGF0aDogbmV2ZXIgc3RhcnQgd2l0aG91dCBpdAoJCWZhaWwgInRoZSB0YXNrIG5lZWRzICR7YmluZCMjKiIkdGFiIn0gYXQgdGhlIHBhdGggdGhlIGpvYiBuYW1lcywgd2hpY2ggYSBwbGFpbiBwcm9jZXNzIGdldHMgb25seSB0aHJvdWdoIGEgcHJpdmF0ZSBtb3VudCBuYW1lc3BhY2UsIGFuZCB0aGlzIG5vZGUgYWxsb3dzIG5vbmUgKG5vdCByb290LCBhbmQgdW5wcml2aWxlZ2VkIHVzZXIgbmFtZXNwYWNlcyBhcmUgbm90IGFsbG93ZWQpOyBhbGxvdyB0aGVtIG9uIHRoZSBub2RlcyAoc3lzY3RsIGtlcm5lbC51bnByaXZpbGVnZWRfdXNlcm5zX2Nsb25lPTEsIHVzZXIubWF4X3VzZXJfbmFtZXNwYWNlcyA+IDApLCBydW4gdGhlIGpvYidzIHRhc2tzIGFzIHJvb3QsIG9yIHVzZSBhIGNvbnRhaW5lciBkcml2ZXIgKG5vbWFkLmRyaXZlciA9IFwiZG9ja2VyXCIpIgoJZmkKCVsgIiRtb2RlIiA9IG5vbmUgXSB8fCBKT0JTSElGVF9UQVNLTlNfTU9ERT0kbW9kZQpmaQptb2RlPSR7Sk9CU0hJRlRfVEFTS05TX01PREU6LSRtb2RlfQppZiBbICIkbW9kZSIgIT0gbm9uZSBdICYmIFsgLXogIiRpbnNpZGUiIF07IHRoZW4KCXVuc2hhcmU9JChjb21tYW5kIC12IHVuc2hhcmUpIHx8IGZhaWwgInVuc2hhcmUgKHV0aWwtbGludXgpIG5vdCBmb3VuZCBvbiBQQVRIIgoJY2FzZSAkbW9kZSBpbgoJcm9vdCkKCQlKT0JTSElGVF9UQVNLTlNfTU9ERT1yb290IEpPQlNISUZUX1RBU0tOU19JTlNJREU9cm9vdCBleGVjICIkdW5zaGFyZSIgLS1tb3VudCAtLXV0cyAtLXByb3BhZ2F0aW9uIHByaXZhdGUgL2Jpbi9zaCAiJDAiICIkc3BlYyIgLS0gIiRAIgoJCTs7Cgl1c2VyKQoJCUpPQlNISUZUX1RBU0tOU19NT0RFPXVzZXIgSk9CU0hJRlRfVEFTS05TX0lOU0lERT0idXNlciAkKGlkIC11KSAkKGlkIC1nKSIgZXhlYyAiJHVuc2hhcmUiIC0tdXNlciAtLW1hcC1yb290LXVzZXIgLS1tb3VudCAtLXV0cyAtLXByb3BhZ2F0aW9uIHByaXZhdGUgL2Jpbi9zaCAiJDAiICIkc3BlYyIgLS0gIiRAIgoJCTs7CgkqKSBmYWlsICJ1bmtub3duIG1vZGUgJG1vZGUiIDs7Cgllc2FjCmZpCnVuc2V0IEpPQlNISUZUX1RBU0tOU19JTlNJREUgSk9CU0hJRlRfVEFTS05TX01PREUKCnNjcmF0Y2g9JChnZXQgc2NyYXRjaCkgfHwgc2NyYXRjaD0nJwppZiBbIC1uICIkc2NyYXRjaCIgXTsgdGhlbgoJbWtkaXIgLXAgIiRzY3JhdGNoIiB8fCBmYWlsICJjYW5ub3QgbWFrZSAkc2NyYXRjaCIKZmkKcm9vdD0nJyAgICAjIHRoZSBuZXcgcm9vdCB3aGVuIC8gaGFkIHRvIGJlIHVuZGVybGFpZCAodGhlbiBjaHJvb3QpCnVuZGVyPTAKCiMgdW5kZXJsYXkgRElSIG1ha2VzIERJUiB3cml0YWJsZSBpbiB0aGlzIG5hbWVzcGFjZSBvbmx5OiBhIHRtcGZzIGhvbGRpbmcKIyB0aGUgc2FtZSBlbnRyaWVzIChkaXJlY3RvcmllcyBhbmQgZmlsZXMgYm91bmQsIGxpbmtzIGNvcGllZCkgaXMgbW91bnRlZAojIG92ZXIgaXQsIHNvIGEgbWlzc2luZyBtb3VudCBwb2ludCBjYW4gYmUgbWFkZSB3aXRob3V0IHRvdWNoaW5nIHRoZSBob3N0Lgp1bmRlcmxheSgpIHsKCVsgLW4gIiRzY3JhdGNoIiBdIHx8IGZhaWwgIm5vIHNjcmF0Y2ggZGlyZWN0b3J5IHRvIGJ1aWxkICQxIGluIgoJdW5kZXI9JCgodW5kZXIgKyAxKSkKCXU9JHNjcmF0Y2gvdW5kZXJsYXktJHVuZGVyCglta2RpciAtcCAiJHUiICYmIG1vdW50IC10IHRtcGZzIC1vIG1vZGU9NzU1IGpvYnNoaWZ0LXVuZGVybGF5ICIkdSIgfHwgZmFpbCAiY2Fubm90IG1vdW50IGEgdG1wZnMgb24gJHUiCglmb3IgZSBpbiAiJHJvb3QkMSIvKiAiJHJvb3QkMSIvLlshLl0qICIkcm9vdCQxIi8uLj8qOyBkbwoJCVsgLWUgIiRlIiBdIHx8IFsgLUwgIiRlIiBdIHx8IGNvbnRpbnVlCgkJYj0ke2UjIyovfQoJCWlmIFsgLUwgIiRlIiBdOyB0aGVuCgkJCWxuIC1zICIkKHJlYWRsaW5rICIkZSIpIiAiJHUvJGIiCgkJZWxpZiBbIC1kICIkZSIgXTsgdGhlbgoJCQlta2RpciAiJHUvJGIiICYmIG1vdW50IC0tcmJpbmQgIiRlIiAiJHUvJGIiCgkJZWxzZQoJCQk6ID4iJHUvJGIiICYmIG1vdW50IC0tYmluZCAiJGUiICIkdS8kYiIKCQlmaSB8fCBmYWlsICJjYW5ub3Qgc2hvdyAkZSBpbiB0aGUgdGFzaydzIHZpZXcgb2YgJDEiCglkb25lCglpZiBbICIkMSIgPSAvIF07IHRoZW4KCQlyb290PSR1CgllbHNlCgkJbW91bnQgLS1yYmluZCAiJHUiICIkcm9vdCQxIiB8fCBmYWlsICJjYW5ub3QgbW91bnQgdGhlIHRhc2sncyB2aWV3IG9mICQxIgoJZmkKfQoKIyBtb3VudHBvaW50IERTVCBTUkMgbWFrZXMgRFNUIChhIGRpcmVjdG9yeSB3aGVuIFNSQyBpcyBvbmUsIGVsc2UgYSBmaWxlKS4KbW91bnRwb2ludCgpIHsKCVsgLWUgIiRyb290JDEiIF0gJiYgcmV0dXJuIDAKCWE9JDEKCXdoaWxlIFsgISAtZSAiJHJvb3QkYSIgXSAmJiBbICEgLUwgIiRyb290JGEiIF07IGRvCgkJYT0kKGRpcm5hbWUgIiRhIikKCWRvbmUKCVsgLWQgIiRyb290JGEiIF0gfHwgZmFpbCAiJGEgaXMgbm90IGEgZGlyZWN0b3J5LCBzbyAkMSBjYW5ub3QgYmUgbWFkZSIKCXVuZGVybGF5ICIkYSIKCWlmIFsgLWQgIiQyIiBdOyB0aGVuCgkJbWtkaXIgLXAgIiRyb290JDEiCgllbHNlCgkJbWtkaXIgLXAgIiRyb290JChkaXJuYW1lICIkMSIpIiAmJiA6ID4iJHJvb3QkMSIKCWZpIHx8IGZhaWwgImNhbm5vdCBtYWtlICQxIGluIHRoZSB0YXNrJ3MgdmlldyIKfQoKYmluZHMoKSB7Cgl3aGlsZSBJRlM9IiR0YWIiIHJlYWQgLXIga2luZCBybyBzcmMgZHN0OyBkbwoJCVsgIiRraW5kIiA9IGJpbmQgXSB8fCBjb250aW51ZQoJCVsgLWUgIiRzcmMiIF0gfHwgZmFpbCAiJHNyYyAoZm9yICRkc3QpIGRvZXMgbm90IGV4aXN0IgoJCW1vdW50cG9pbnQgIiRkc3QiICIkc3JjIgoJCW1vdW50IC0tYmluZCAiJHNyYyIgIiRyb290JGRzdCIgfHwgZmFpbCAiY2Fubm90IG1vdW50ICRzcmMgYXQgJGRzdCIKCQlpZiBbICIkcm8iID0gcm8gXTsgdGhlbgoJCQltb3VudCAtbyByZW1vdW50LGJpbmQscm8gIiRyb290JGRzdCIgfHwgZmFpbCAiY2Fubm90IG1ha2UgJGRzdCByZWFkLW9ubHkiCgkJZmkKCWRvbmUgPCIkc3BlYyIKfQoKIyBob3N0cyB3cml0ZXMgdGhlIHRhc2sncyAvZXRjL2hvc3RzOiBpdHMgb3duIGFuZCBpdHMgcGVlcnMnIG5hbWVzIGZpcnN0CiMgKHRoZSBmaXJzdCBtYXRjaCB3aW5zKSwgdGhlbiB0aGUgaG9zdCdzIG93biBlbnRyaWVzLgpob3N0cygpIHsKCXdoaWxlIElGUz0iJHRhYiIgcmVhZCAtciBraW5kIGEgbmFtZXM7IGRvCgkJWyAiJGtpbmQiID0gaG9zdCBdICYmIHByaW50ZiAnJXNcdCVzXG4nICIkYSIgIiRuYW1lcyIKCWRvbmUgPCIkc3BlYyIgPiIkc2NyYXRjaC9ob3N0cyIKCVsgLXMgIiRzY3JhdGNoL2hvc3RzIiBdIHx8IHJldHVybiAwCglpZiBbIC1mIC9ldGMvaG9zdHMgXTsgdGhlbgoJCWNhdCAvZXRjL2hvc3RzID4+IiRzY3JhdGNoL2hvc3RzIgoJZmkKCW1vdW50cG9pbnQgL2V0Yy9ob3N0cyAiJHNjcmF0Y2gvaG9zdHMiCgltb3VudCAtLWJpbmQgIiRzY3JhdGNoL2hvc3RzIiAiJHJvb3QvZXRjL2hvc3RzIiB8fCBmYWlsICJjYW5ub3QgbW91bnQgdGhlIHRhc2sncyAvZXRjL2hvc3RzIgp9CgppZiBbICIkbW9kZSIgIT0gbm9uZSBdOyB0aGVuCgluYW1lPSQoZ2V0IGhvc3RuYW1lKSB8fCBuYW1lPScnCglpZiBbIC1uICIkbmFtZSIgXTsgdGhlbgoJCSMgc2V0aG9zdG5hbWUoMikgdGhyb3VnaCBob3N0bmFtZSgxKTogL3Byb2Mvc3lzL2tlcm5lbC9ob3N0bmFtZQoJCSMgYmVsb25ncyB0byB0aGUgaG9zdCdzIHJvb3QsIG5vdCB0byBhIHVzZXIgbmFtZXNwYWNlJ3MuCgkJeyBjb21tYW5kIC12IGhvc3RuYW1lID4vZGV2L251bGwgMj4mMSAmJiBob3N0bmFtZSAiJG5hbWUiOyB9IHx8CgkJCXsgcHJpbnRmICclcycgIiRuYW1lIiA+L3Byb2Mvc3lzL2tlcm5lbC9ob3N0bmFtZTsgfSAyPi9kZXYvbnVsbCB8fAoJCQlmYWlsICJjYW5ub3Qgc2V0IHRoZSBob3N0IG5hbWUgJG5hbWUiCgkJSE9TVE5BTUU9JG5hbWUKCQlleHBvcnQgSE9TVE5BTUUKCWZpCgliaW5kcwoJaG9zdHMKZmkKCiMgaWZhY2UgQUREUiBwcmludHMgdGhlIGludGVyZmFjZSB0aGF0IGhvbGRzIEFERFIuCmlmYWNlKCkgewoJYT0kMQoJY2FzZSAkYSBpbgoJKlshMC05LjphLWZBLUZdKikgYT0kKGdldGVudCBhaG9zdHMgIiRhIiAyPi9kZXYvbnVsbCB8IHsgcmVhZCAtciB4IF8gJiYgcHJpbnRmICclcycgIiR4IjsgfSkgOzsKCWVzYWMKCVsgLW4gIiRhIiBdIHx8IHJldHVybiAxCgljb21tYW5kIC12IGlwID4vZGV2L251bGwgMj4mMSB8fCByZXR1cm4gMQoJaXAgLW8gYWRkciBzaG93IDI+L2Rldi9udWxsIHwgd2hpbGUgcmVhZCAtciBfIGRldiBmYW0gY2lkciBfOyBkbwoJCWNhc2UgJGZhbSBpbiBpbmV0IHwgaW5ldDYpIDs7ICopIGNvbnRpbnVlIDs7IGVzYWMKCQlpZiBbICIke2NpZHIlLyp9IiA9ICIkYSIgXTsgdGhlbgoJCQlwcmludGYgJyVzXG4nICIke2RldiUlQCp9IgoJCQlicmVhawoJCWZpCglkb25lCn0KCiMgUGxhdGZvcm0gYWRkaXRpb25zLCBsaWtlIHRoZSBob3N0ZmlsZSB2YXJpYWJsZXM6IG5ldmVyIG92ZXIgd2hhdCBpcyBzZXQuCmlmIGFkZHI9JChnZXQgYWRkcikgJiYgZGV2PSQoaWZhY2UgIiRhZGRyIikgJiYgWyAtbiAiJGRldiIgXTsgdGhlbgoJZm9yIHYgaW4gT01QSV9NQ0FfYnRsX3RjcF9pZl9pbmNsdWRlIE9NUElfTUNBX29vYl90Y3BfaWZfaW5jbHVkZSBHTE9PX1NPQ0tFVF9JRk5BTUUgTkNDTF9TT0NLRVRfSUZOQU1FOyBkbwoJCWV2YWwgIlsgLW4gXCJcJHskdit4fVwiIF0gfHwgeyAkdj1cJGRldjsgZXhwb3J0ICR2OyB9IgoJZG9uZQpmaQoKIyBBIHVzZXIgbmFtZXNwYWNlJ3Mgcm9vdCBnb2VzIGJhY2sgdG8gdGhlIGNhbGxlcidzIG93biB1aWQgYW5kIGdpZCBmb3IKIyB0aGUgY29tbWFuZCAoYSBuZXN0ZWQgdXNlciBuYW1lc3BhY2UgbWFwcGluZyB0aGVtIG9udG8gb3VycykuIFRoZSBuZXcKIyByb290LCBpZiBhbnksIGlzIGVudGVyZWQgbGFzdDogYSBjaHJvb3RlZCBwcm9jZXNzIG1heSBub3QgbWFrZSBhIHVzZXIKIyBuYW1lc3BhY2UsIGFuZCB1bnNoYXJlKDEpIGVudGVycyBpdCBhZnRlciBtYWtpbmcgb25lLgpzZXQgLS0gLS13ZD0iJChwd2QpIiAtLSAiJEAiCmlmIFsgLW4gIiRyb290IiBdOyB0aGVuCglzZXQgLS0gLS1yb290PSIkcm9vdCIgIiRAIgpmaQppZiBbICIkbW9kZSIgPSB1c2VyIF07IHRoZW4KCWlkcz0ke2luc2lkZSN1c2VyIH0KCXNldCAtLSAtLXVzZXIgLS1tYXAtdXNlcj0iJHtpZHMlICp9IiAtLW1hcC1ncm91cD0iJHtpZHMjKiB9IiAiJEAiCmZpCmV4ZWMgIiQoY29tbWFuZCAtdiB1bnNoYXJlKSIgIiRAIgo=\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0644"
      }
      template {
        destination = "local/jobshift-taskns.spec"
        data        = "{{ base64Decode \"bW9kZQlhdXRvCnNjcmF0Y2gJ\" }}{{ env \"NOMAD_TASK_DIR\" }}{{ base64Decode \"L2pvYnNoaWZ0LXRhc2tucy5kCmhvc3RuYW1lCXBzLQ==\" }}{{ env \"NOMAD_ALLOC_INDEX\" }}{{ base64Decode \"Cmhvc3QJ\" }}{{ env \"NOMAD_IP_synport_0\" }}{{ base64Decode \"CXBzLQ==\" }}{{ env \"NOMAD_ALLOC_INDEX\" }}{{ base64Decode \"CmFkZHIJ\" }}{{ env \"NOMAD_IP_synport_0\" }}{{ base64Decode \"Cg==\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0644"
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
      port "synport_0" {
      }
    }
    meta {
      jobshift_env    = "template over registrations"
      jobshift_judges = "none in the job (a controller or watch -enforce)"
      jobshift_role   = "ps"
    }
    service {
      name     = "alice-mesh-ps-synport-0"
      tags     = ["idx-$${NOMAD_ALLOC_INDEX}"]
      port     = "synport_0"
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
        args    = ["-c", "n=0\nwhile :; do\n  l=\n  IFS= read -r l < \"$NOMAD_TASK_DIR/barrier\" 2>/dev/null\n  [ \"$l\" = READY ] && exit 0\n  n=$((n+1))\n  if [ \"$n\" -gt 1200 ]; then\n    echo \"jobshift: barrier timeout: after 2m0s not every task of job alice~mesh was placed and registered; still missing: $l. Check 'nomad job status alice~mesh' for allocations that could not be placed (not enough CPU, memory or GPUs) or that ended early; the timeout is nomad.barrier_timeout in the site config.\" >&2\n    exit 1\n  fi\n  sleep 0.1\ndone\n"]
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
{{- range $s := nomadService "alice-mesh-ps-synport-0" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "0/" .) true }}{{ end }}{{ end }}{{ end -}}
{{- range $i := loop 2 }}{{ if not (scratch.Key (print "0/idx-" $i)) }}{{ $missing = printf "%s %s-%d" $missing "ps" $i }}{{ end }}{{ end -}}
{{- range $s := nomadService "alice-mesh-worker-synport-0" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "1/" .) true }}{{ end }}{{ end }}{{ end -}}
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
        args    = ["$${NOMAD_TASK_DIR}/jobshift-taskns.sh", "$${NOMAD_TASK_DIR}/jobshift-taskns.spec", "--", "/bin/sh", "-c", "_t_kind=pai\n_t_gang=0\n_t_bl=-1\n_t_classes=uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuutuuuuuuuuuuuuuuuuuuuuuuutuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuutuupupuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu\n_t_bo_init=10000 _t_bo_max=300000\n_t_tretry_0=0\n_t_tretry_1=0\n_t_role=1\n_s_frac=\n_s_pid=\njs_counter_add() {\n\t_l_n=0\n\tuntil mkdir \"$1.lock\" 2>/dev/null; do\n\t\tsleep 0.05\n\t\t_l_n=$((_l_n + 1))\n\t\t[ \"$_l_n\" -gt 200 ] && rmdir \"$1.lock\" 2>/dev/null\n\tdone\n\t_l_v=$(cat \"$1\" 2>/dev/null || echo 0)\n\techo $((_l_v + 1)) >\"$1\"\n\trmdir \"$1.lock\"\n}\njs_nth_is() {\n\t_q_p=\n\t_q_k=1\n\twhile [ \"$_q_k\" -lt \"$2\" ]; do\n\t\t_q_p=\"$_q_p?\"\n\t\t_q_k=$((_q_k + 1))\n\tdone\n\tcase $1 in\n\t$_q_p\"$3\"*) return 0 ;;\n\tesac\n\treturn 1\n}\njs_restart() {\n\tcase $_t_kind in\n\tpai)\n\t\t[ \"$_t_gang\" = 1 ] && return 1\n\t\t[ \"$2\" = 0 ] && return 1\n\t\tif [ \"$2\" -ge 0 ] && [ \"$2\" -le 255 ]; then\n\t\t\tjs_nth_is \"$_t_classes\" $(($2 + 1)) t && return 0\n\t\t\tjs_nth_is \"$_t_classes\" $(($2 + 1)) p && return 1\n\t\tfi\n\t\teval \"_r_max=\\$_t_tretry_$1\"\n\t\t_r_f=$3/restarts.$1.$4\n\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\tif [ \"$_r_max\" = -1 ] || [ \"$_r_so\" -lt \"$_r_max\" ]; then\n\t\t\tjs_counter_add \"$_r_f\"\n\t\t\treturn 0\n\t\tfi\n\t\treturn 1\n\t\t;;\n\ttf | pytorch)\n\t\t[ \"$2\" -ge 0 ] && [ \"$2\" -le 255 ] || return 1\n\t\teval \"_r_rs=\\$_t_rs_$1\"\n\t\tjs_nth_is \"$_r_rs\" $(($2 + 1)) 1 || return 1\n\t\t_r_f=$3/restarts.job\n\t\tif [ \"$_t_bl\" -ge 0 ]; then\n\t\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\t\t[ $((_r_so + 1)) -ge \"$_t_bl\" ] && return 1\n\t\tfi\n\t\tjs_counter_add \"$_r_f\"\n\t\treturn 0\n\t\t;;\n\tesac\n\treturn 1\n}\njs_backoff() {\n\tif [ \"$1\" -le 0 ] || [ \"$2\" -gt $((2 * _t_bo_max)) ]; then\n\t\t_b_wait=0\n\t\t_b_streak=1\n\t\treturn\n\tfi\n\t_b_wait=$_t_bo_init\n\t_b_n=1\n\twhile [ \"$_b_n\" -lt \"$1\" ] && [ \"$_b_wait\" -lt \"$_t_bo_max\" ]; do\n\t\t_b_wait=$((_b_wait * 2))\n\t\t_b_n=$((_b_n + 1))\n\tdone\n\t[ \"$_b_wait\" -gt \"$_t_bo_max\" ] && _b_wait=$_t_bo_max\n\t_b_streak=$(($1 + 1))\n}\njs_now_ms() {\n\t_n_ns=$(date +%s%N)\n\tcase $_n_ns in\n\t'' | *[!0-9]*) echo $(($(date +%s) * 1000)) ;;\n\t*) echo $((_n_ns / 1000000)) ;;\n\tesac\n}\njs_sleep_ms() {\n\t[ \"$_k_stop\" = 1 ] && return 0\n\tif [ -z \"$_s_frac\" ]; then\n\t\t_s_frac=0\n\t\tsleep 0.001 2>/dev/null && _s_frac=1\n\tfi\n\tif [ \"$_s_frac\" = 1 ]; then\n\t\tsleep \"$(($1 / 1000)).$(printf '%03d' $(($1 % 1000)))\" &\n\telse\n\t\tsleep $((($1 + 999) / 1000)) &\n\tfi\n\t_s_pid=$!\n\t[ \"$_k_stop\" = 1 ] && kill -KILL \"$_s_pid\" 2>/dev/null\n\twait \"$_s_pid\"\n\tkill -KILL \"$_s_pid\" 2>/dev/null\n\twait \"$_s_pid\" 2>/dev/null\n\t_s_pid=\n\treturn 0\n}\n_k_stop=0\n_k_child=\n_k_setsid=\ncommand -v setsid >/dev/null 2>&1 && _k_setsid=setsid\ntrap '_k_stop=1; [ -n \"$_k_child\" ] && { kill -TERM \"-$_k_child\" 2>/dev/null || kill -TERM \"$_k_child\" 2>/dev/null; }; [ -n \"$_s_pid\" ] && kill -KILL \"$_s_pid\" 2>/dev/null' TERM INT\n_k_dir=$NOMAD_TASK_DIR\n[ -n \"$_k_dir\" ] || _k_dir=.\n_k_i=$NOMAD_ALLOC_INDEX\n[ -n \"$_k_i\" ] || _k_i=0\n_k_streak=0\n_k_rc=0\nwhile :; do\n\t_k_t0=$(js_now_ms)\n\t$_k_setsid \"$@\" &\n\t_k_child=$!\n\t[ \"$_k_stop\" = 1 ] && { kill -TERM \"-$_k_child\" 2>/dev/null || kill -TERM \"$_k_child\" 2>/dev/null; }\n\twait \"$_k_child\"\n\t_k_rc=$?\n\twhile kill -0 \"$_k_child\" 2>/dev/null; do\n\t\twait \"$_k_child\"\n\t\t_k_rc=$?\n\tdone\n\tif [ \"$_k_stop\" = 1 ]; then\n\t\twhile kill -0 \"-$_k_child\" 2>/dev/null; do sleep 0.1; done\n\tfi\n\t_k_child=\n\t_k_t1=$(js_now_ms)\n\techo \"$_k_t0 $_k_t1 $_k_rc\" >>\"$_k_dir/jobshift-runs\"\n\t[ \"$_k_stop\" = 1 ] && break\n\tjs_restart \"$_t_role\" \"$_k_rc\" \"$_k_dir\" \"$_k_i\" || break\n\tjs_backoff \"$_k_streak\" $((_k_t1 - _k_t0))\n\t_k_streak=$_b_streak\n\tprintf 'jobshift: task exited with %s; restarting it in place after %s ms (kubelet CrashLoopBackOff)\\n' \"$_k_rc\" \"$_b_wait\" >&2\n\tif [ \"$_b_wait\" -gt 0 ]; then\n\t\tjs_sleep_ms \"$_b_wait\"\n\t\t[ \"$_k_stop\" = 1 ] && break\n\tfi\ndone\nexit \"$_k_rc\"\n", "jobshift-restart", "bash", "-c", "eval \"$1\" || exit $?", "_", "python3 mesh.py --ps_hosts=$PAI_TASK_ROLE_ps_HOST_LIST"]
        command = "sh"
      }
      env {
        CUDA_VISIBLE_DEVICES = ""
      }
      resources {
        cpu    = 100
        memory = 256
      }
      template {
        destination = "local/jobshift.env"
        data        = <<EOT
{{- $h := "" -}}{{- $all := nomadService "alice-mesh-ps-synport-0" -}}{{- range $i := loop 2 -}}{{- range $all -}}{{- if and (eq .JobID (env "NOMAD_JOB_ID")) (.Tags | contains (printf "idx-%d" $i)) -}}{{- if ne $h "" }}{{ $h = printf "%s," $h }}{{ end -}}{{- $h = printf "%s%s:%d" $h .Address .Port -}}{{- end -}}{{- end -}}{{- end }}
JS_HOSTS_PS={{ $h }}
{{- $h := "" -}}{{- $all := nomadService "alice-mesh-worker-synport-0" -}}{{- range $i := loop 2 -}}{{- range $all -}}{{- if and (eq .JobID (env "NOMAD_JOB_ID")) (.Tags | contains (printf "idx-%d" $i)) -}}{{- if ne $h "" }}{{ $h = printf "%s," $h }}{{ end -}}{{- $h = printf "%s%s:%d" $h .Address .Port -}}{{- end -}}{{- end -}}{{- end }}
JS_HOSTS_WORKER={{ $h }}
JS_ROLE=worker
JS_INDEX={{ env "NOMAD_ALLOC_INDEX" }}
EOT
        change_mode = "noop"
        once        = true
        env         = true
      }
      template {
        destination = "local/jobshift-taskns.sh"
        data        = "{{ base64Decode \"IyBqb2JzaGlmdCB0YXNrIG5hbWVzcGFjZTogd2hhdCBhIHBvZCBvciBjb250YWluZXIgZ2F2ZSBlYWNoIHRhc2sgYmVzaWRlcwojIGl0cyBjb21tYW5kLCByZWJ1aWx0IGZvciBhIHBsYWluIHByb2Nlc3MgKFNsdXJtIHN0ZXAsIE5vbWFkIHJhd19leGVjIG9yCiMgZXhlYyB0YXNrLCBsb2NhbCBwcm9jZXNzKToKIyAgIC0gaXRzIG93biBob3N0IG5hbWUgKGhvc3RuYW1lLCBnZXRob3N0bmFtZSgpLCAkSE9TVE5BTUUpLCBpbiBhIHByaXZhdGUKIyAgICAgVVRTIG5hbWVzcGFjZTsKIyAgIC0gYW4gL2V0Yy9ob3N0cyB3aGVyZSBpdHMgb3duIGFuZCBpdHMgcGVlcnMnIHBsYXRmb3JtIG5hbWVzIHJlc29sdmUgdG8KIyAgICAgdGhlaXIgYWRkcmVzc2VzLCBhbmQgZGF0YSBhbmQgcGxhdGZvcm0gZmlsZXMgYXQgdGhlIGpvYidzIG93biBwYXRocywKIyAgICAgaW4gYSBwcml2YXRlIG1vdW50IG5hbWVzcGFjZSAobm90aGluZyByZWFjaGVzIHRoZSBob3N0J3MgbW91bnQgdGFibGUpOwojICAgLSB0aGUgaW50ZXJmYWNlIGNhcnJ5aW5nIHRoZSB0YXNrJ3MgYWRkcmVzcywgZm9yIHRoZSBjb2xsZWN0aXZlCiMgICAgIGxpYnJhcmllcyAoT3Blbk1QSSwgR2xvbywgTkNDTCksIHVubGVzcyB0aGUgam9iIHNldCB0aGVtIGl0c2VsZi4KIyBUaGVuIGl0IGV4ZWNzIHRoZSBjb21tYW5kIHdpdGggaXRzIGFyZ3VtZW50cyB1bmNoYW5nZWQuCiMKIyBVc2FnZTogc2ggdGFza25zLnNoIFNQRUMgLS0gY29tbWFuZCBbYXJncy4uLl0KIyBTUEVDIGhvbGRzIG9uZSBpdGVtIHBlciBsaW5lLCBmaWVsZHMgc2VwYXJhdGVkIGJ5IG9uZSBUQUIgKGRyaXZlcnMvdGFza25zCiMgd3JpdGVzIGl0IGFuZCByZWZ1c2VzIHZhbHVlcyBob2xkaW5nIGEgVEFCIG9yIGEgbmV3bGluZSk6CiMgICBtb2RlICAgIHJvb3QgfCB1c2VyIHwgbm9uZSB8IGF1dG8KIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICByb290OiB1bnNoYXJlIHRoZSBtb3VudCBhbmQgVVRTIG5hbWVzcGFjZXM7CiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgdXNlcjogdGhlIHNhbWUgaW5zaWRlIGEgdXNlciBuYW1lc3BhY2UKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAodW5wcml2aWxlZ2VkKSwgdGhlIGNvbW1hbmQgdGhlbiBydW5zCiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgdW5kZXIgdGhlIGNhbGxlcidzIG93biB1aWQgYW5kIGdpZCBhZ2FpbjsKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICBub25lOiBvbmx5IHRoZSBpbnRlcmZhY2UgdmFyaWFibGVzOwojICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIGF1dG86IHRoZSBmaXJzdCBvZiByb290IGFuZCB1c2VyIHRoaXMKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICBub2RlIGFsbG93cywgZWxzZSBub25lIHdpdGggYSB3YXJuaW5nCiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgKHJlZnVzZWQgd2hlbiB0aGUgc3BlYyBoYXMgYSBiaW5kKQojICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIChhIHRhcmdldCB0aGF0IGtub3dzIG5vdGhpbmcgb2YgaXRzCiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgbm9kZXMgd2hlbiBpdCByZW5kZXJzOiBOb21hZCkKIyAgIHNjcmF0Y2ggRElSICAgICAgICAgICAgICAgICAgIHRoaXMgc3RhcnQncyBwcml2YXRlIGRpcmVjdG9yeQojICAgaG9zdG5hbWUgTkFNRQojICAgaG9zdCAgICBBRERSIE5BTUUuLi4gICAgICAgICAgYW4gL2V0Yy9ob3N0cyBsaW5lIChuYW1lcyBzcGFjZS1zZXBhcmF0ZWQpCiMgICBiaW5kICAgIHJvfHJ3IFNSQyBEU1QgICAgICAgICBhIGRpcmVjdG9yeSBvciBmaWxlIGF0IHRoZSBqb2IncyBwYXRoCiMgICBhZGRyICAgIEFERFIgICAgICAgICAgICAgICAgICB0aGUgdGFzaydzIG93biBhZGRyZXNzIChhbiBJUCwgb3IgYSBuYW1lCiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgcmVzb2x2ZWQgd2l0aCBnZXRlbnQpCiMgRXhpdCBjb2RlIDEyNyB3aGVuIHRoZSB2aWV3IGNhbm5vdCBiZSBidWlsdCAodGhlIGNvbW1hbmQgbmV2ZXIgcmFuKS4KCnNldCAtdQpmYWlsKCkgewoJcHJpbnRmICdqb2JzaGlmdCB0YXNrIG5hbWVzcGFjZTogJXNcbicgIiQqIiA+JjIKCWV4aXQgMTI3Cn0KWyAkIyAtZ2UgMyBdICYmIFsgIiQyIiA9IC0tIF0gfHwgZmFpbCAidXNhZ2U6IHRhc2tucy5zaCBTUEVDIC0tIGNvbW1hbmQgW2FyZ3MuLi5dIgpzcGVjPSQxCnNoaWZ0IDIKdGFiPSQocHJpbnRmICdcdCcpCgojIGdldCBLRVkgcHJpbnRzIHRoZSBmaXJzdCB2YWx1ZSBvZiBLRVkgKHRoZSByZXN0IG9mIGl0cyBsaW5lKS4KZ2V0KCkgewoJd2hpbGUgSUZTPSByZWFkIC1yIGxpbmU7IGRvCgkJY2FzZSAkbGluZSBpbiAiJDEkdGFiIiopCgkJCXByaW50ZiAnJXNcbicgIiR7bGluZSMqIiR0YWIifSIKCQkJcmV0dXJuIDAKCQkJOzsKCQllc2FjCglkb25lIDwiJHNwZWMiCglyZXR1cm4gMQp9Cgptb2RlPSQoZ2V0IG1vZGUpIHx8IGZhaWwgIm5vIG1vZGUgaW4gJHNwZWMiCmluc2lkZT0ke0pPQlNISUZUX1RBU0tOU19JTlNJREU6LX0KaWYgWyAiJG1vZGUiID0gYXV0byBdICYmIFsgLXogIiRpbnNpZGUiIF07IHRoZW4KCW1vZGU9bm9uZQoJaWYgWyAiJChpZCAtdSkiID0gMCBdICYmIHVuc2hhcmUgLS1tb3VudCAtLXV0cyAtLXByb3BhZ2F0aW9uIHByaXZhdGUgdHJ1ZSAyPi9kZXYvbnVsbDsgdGhlbgoJCW1vZGU9cm9vdAoJZWxpZiB1bnNoYXJlIC0tdXNlciAtLW1hcC1yb290LXVzZXIgLS1tb3VudCAtLXV0cyB0cnVlIDI+L2Rldi9udWxsOyB0aGVuCgkJbW9kZT11c2VyCgllbGlmIFsgLW4gIiQoZ2V0IGhvc3RuYW1lKSIgXTsgdGhlbgoJCXByaW50ZiAnJXNcbicgImpvYnNoaWZ0OiB3YXJuaW5nOiB0aGlzIHRhc2sga2VlcHMgdGhlIG5vZGUncyBob3N0IG5hbWUsIG5vdCAkKGdldCBob3N0bmFtZSkgKG5vIHByaXZhdGUgVVRTIG5hbWVzcGFjZTogbm90IHJvb3QsIGFuZCB1bnByaXZpbGVnZWQgdXNlciBuYW1lc3BhY2VzIGFyZSBub3QgYWxsb3dlZCk7IE9wZW5NUEkncyBzaGFyZWQtbWVtb3J5IHRyYW5zcG9ydCwgTkNDTCBhbmQgSG9yb3ZvZCB0YWtlIHRhc2tzIHdpdGggb25lIGhvc3QgbmFtZSBmb3Igb25lIG5vZGU7IGFsbG93IHRoZW0gb24gdGhlIG5vZGVzIChzeXNjdGwga2VybmVsLnVucHJpdmlsZWdlZF91c2VybnNfY2xvbmU9MSwgdXNlci5tYXhfdXNlcl9uYW1lc3BhY2VzID4gMCkgb3IgcnVuIHRoZSB0YXNrIGluIGEgY29udGFpbmVyIiA+JjIKCWZpCglpZiBbICIkbW9kZSIgPSBub25lIF0gJiYgYmluZD0kKGdldCBiaW5kKTsgdGhlbgoJCSMgZGF0YSBvciBhIGZpbGUgdGhlIGpvYiBuZWVkcyBhdCBpdHMgcGF0aDogbmV2ZXIgc3RhcnQgd2l0aG91dCBpdAoJCWZhaWwgInRoZSB0YXNrIG5lZWRzICR7YmluZCMjKiIkdGFiIn0gYXQgdGhlIHBhdGggdGhlIGpvYiBuYW1lcywgd2hpY2ggYSBwbGFpbiBwcm9jZXNzIGdldHMgb25seSB0aHJvdWdoIGEgcHJpdmF0ZSBtb3VudCBuYW1lc3BhY2UsIGFuZCB0aGlzIG5vZGUgYWxsb3dzIG5vbmUgKG5vdCByb290LCBhbmQgdW5wcml2aWxlZ2VkIHVzZXIgbmFtZXNwYWNlcyBhcmUgbm90IGFsbG93ZWQpOyBhbGxvdyB0aGVtIG9uIHRoZSBub2RlcyAoc3lzY3RsIGtlcm5lbC51bnByaXZpbGVnZWRfdXNlcm5zX2Nsb25lPTEsIHVzZXIubWF4X3VzZXJfbmFtZXNwYWNlcyA+IDApLCBydW4gdGhlIGpvYidzIHRhc2tzIGFzIHJvb3QsIG9yIHVzZSBhIGNvbnRhaW5lciBkcml2ZXIgKG5vbWFkLmRyaXZlciA9IFwiZG9ja2VyXCIpIgoJZmkKCVsgIiRtb2RlIiA9IG5vbmUgXSB8fCBKT0JTSElGVF9UQVNLTlNfTU9ERT0kbW9kZQpmaQptb2RlPSR7Sk9CU0hJRlRfVEFTS05TX01PREU6LSRtb2RlfQppZiBbICIkbW9kZSIgIT0gbm9uZSBdICYmIFsgLXogIiRpbnNpZGUiIF07IHRoZW4KCXVuc2hhcmU9JChjb21tYW5kIC12IHVuc2hhcmUpIHx8IGZhaWwgInVuc2hhcmUgKHV0aWwtbGludXgpIG5vdCBmb3VuZCBvbiBQQVRIIgoJY2FzZSAkbW9kZSBpbgoJcm9vdCkKCQlKT0JTSElGVF9UQVNLTlNfTU9ERT1yb290IEpPQlNISUZUX1RBU0tOU19JTlNJREU9cm9vdCBleGVjICIkdW5zaGFyZSIgLS1tb3VudCAtLXV0cyAtLXByb3BhZ2F0aW9uIHByaXZhdGUgL2Jpbi9zaCAiJDAiICIkc3BlYyIgLS0gIiRAIgoJCTs7Cgl1c2VyKQoJCUpPQlNISUZUX1RBU0tOU19NT0RFPXVzZXIgSk9CU0hJRlRfVEFTS05TX0lOU0lERT0idXNlciAkKGlkIC11KSAkKGlkIC1nKSIgZXhlYyAiJHVuc2hhcmUiIC0tdXNlciAtLW1hcC1yb290LXVzZXIgLS1tb3VudCAtLXV0cyAtLXByb3BhZ2F0aW9uIHByaXZhdGUgL2Jpbi9zaCAiJDAiICIkc3BlYyIgLS0gIiRAIgoJCTs7CgkqKSBmYWlsICJ1bmtub3duIG1vZGUgJG1vZGUiIDs7Cgllc2FjCmZpCnVuc2V0IEpPQlNISUZUX1RBU0tOU19JTlNJREUgSk9CU0hJRlRfVEFTS05TX01PREUKCnNjcmF0Y2g9JChnZXQgc2NyYXRjaCkgfHwgc2NyYXRjaD0nJwppZiBbIC1uICIkc2NyYXRjaCIgXTsgdGhlbgoJbWtkaXIgLXAgIiRzY3JhdGNoIiB8fCBmYWlsICJjYW5ub3QgbWFrZSAkc2NyYXRjaCIKZmkKcm9vdD0nJyAgICAjIHRoZSBuZXcgcm9vdCB3aGVuIC8gaGFkIHRvIGJlIHVuZGVybGFpZCAodGhlbiBjaHJvb3QpCnVuZGVyPTAKCiMgdW5kZXJsYXkgRElSIG1ha2VzIERJUiB3cml0YWJsZSBpbiB0aGlzIG5hbWVzcGFjZSBvbmx5OiBhIHRtcGZzIGhvbGRpbmcKIyB0aGUgc2FtZSBlbnRyaWVzIChkaXJlY3RvcmllcyBhbmQgZmlsZXMgYm91bmQsIGxpbmtzIGNvcGllZCkgaXMgbW91bnRlZAojIG92ZXIgaXQsIHNvIGEgbWlzc2luZyBtb3VudCBwb2ludCBjYW4gYmUgbWFkZSB3aXRob3V0IHRvdWNoaW5nIHRoZSBob3N0Lgp1bmRlcmxheSgpIHsKCVsgLW4gIiRzY3JhdGNoIiBdIHx8IGZhaWwgIm5vIHNjcmF0Y2ggZGlyZWN0b3J5IHRvIGJ1aWxkICQxIGluIgoJdW5kZXI9JCgodW5kZXIgKyAxKSkKCXU9JHNjcmF0Y2gvdW5kZXJsYXktJHVuZGVyCglta2RpciAtcCAiJHUiICYmIG1vdW50IC10IHRtcGZzIC1vIG1vZGU9NzU1IGpvYnNoaWZ0LXVuZGVybGF5ICIkdSIgfHwgZmFpbCAiY2Fubm90IG1vdW50IGEgdG1wZnMgb24gJHUiCglmb3IgZSBpbiAiJHJvb3QkMSIvKiAiJHJvb3QkMSIvLlshLl0qICIkcm9vdCQxIi8uLj8qOyBkbwoJCVsgLWUgIiRlIiBdIHx8IFsgLUwgIiRlIiBdIHx8IGNvbnRpbnVlCgkJYj0ke2UjIyovfQoJCWlmIFsgLUwgIiRlIiBdOyB0aGVuCgkJCWxuIC1zICIkKHJlYWRsaW5rICIkZSIpIiAiJHUvJGIiCgkJZWxpZiBbIC1kICIkZSIgXTsgdGhlbgoJCQlta2RpciAiJHUvJGIiICYmIG1vdW50IC0tcmJpbmQgIiRlIiAiJHUvJGIiCgkJZWxzZQoJCQk6ID4iJHUvJGIiICYmIG1vdW50IC0tYmluZCAiJGUiICIkdS8kYiIKCQlmaSB8fCBmYWlsICJjYW5ub3Qgc2hvdyAkZSBpbiB0aGUgdGFzaydzIHZpZXcgb2YgJDEiCglkb25lCglpZiBbICIkMSIgPSAvIF07IHRoZW4KCQlyb290PSR1CgllbHNlCgkJbW91bnQgLS1yYmluZCAiJHUiICIkcm9vdCQxIiB8fCBmYWlsICJjYW5ub3QgbW91bnQgdGhlIHRhc2sncyB2aWV3IG9mICQxIgoJZmkKfQoKIyBtb3VudHBvaW50IERTVCBTUkMgbWFrZXMgRFNUIChhIGRpcmVjdG9yeSB3aGVuIFNSQyBpcyBvbmUsIGVsc2UgYSBmaWxlKS4KbW91bnRwb2ludCgpIHsKCVsgLWUgIiRyb290JDEiIF0gJiYgcmV0dXJuIDAKCWE9JDEKCXdoaWxlIFsgISAtZSAiJHJvb3QkYSIgXSAmJiBbICEgLUwgIiRyb290JGEiIF07IGRvCgkJYT0kKGRpcm5hbWUgIiRhIikKCWRvbmUKCVsgLWQgIiRyb290JGEiIF0gfHwgZmFpbCAiJGEgaXMgbm90IGEgZGlyZWN0b3J5LCBzbyAkMSBjYW5ub3QgYmUgbWFkZSIKCXVuZGVybGF5ICIkYSIKCWlmIFsgLWQgIiQyIiBdOyB0aGVuCgkJbWtkaXIgLXAgIiRyb290JDEiCgllbHNlCgkJbWtkaXIgLXAgIiRyb290JChkaXJuYW1lICIkMSIpIiAmJiA6ID4iJHJvb3QkMSIKCWZpIHx8IGZhaWwgImNhbm5vdCBtYWtlICQxIGluIHRoZSB0YXNrJ3MgdmlldyIKfQoKYmluZHMoKSB7Cgl3aGlsZSBJRlM9IiR0YWIiIHJlYWQgLXIga2luZCBybyBzcmMgZHN0OyBkbwoJCVsgIiRraW5kIiA9IGJpbmQgXSB8fCBjb250aW51ZQoJCVsgLWUgIiRzcmMiIF0gfHwgZmFpbCAiJHNyYyAoZm9yICRkc3QpIGRvZXMgbm90IGV4aXN0IgoJCW1vdW50cG9pbnQgIiRkc3QiICIkc3JjIgoJCW1vdW50IC0tYmluZCAiJHNyYyIgIiRyb290JGRzdCIgfHwgZmFpbCAiY2Fubm90IG1vdW50ICRzcmMgYXQgJGRzdCIKCQlpZiBbICIkcm8iID0gcm8gXTsgdGhlbgoJCQltb3VudCAtbyByZW1vdW50LGJpbmQscm8gIiRyb290JGRzdCIgfHwgZmFpbCAiY2Fubm90IG1ha2UgJGRzdCByZWFkLW9ubHkiCgkJZmkKCWRvbmUgPCIkc3BlYyIKfQoKIyBob3N0cyB3cml0ZXMgdGhlIHRhc2sncyAvZXRjL2hvc3RzOiBpdHMgb3duIGFuZCBpdHMgcGVlcnMnIG5hbWVzIGZpcnN0CiMgKHRoZSBmaXJzdCBtYXRjaCB3aW5zKSwgdGhlbiB0aGUgaG9zdCdzIG93biBlbnRyaWVzLgpob3N0cygpIHsKCXdoaWxlIElGUz0iJHRhYiIgcmVhZCAtciBraW5kIGEgbmFtZXM7IGRvCgkJWyAiJGtpbmQiID0gaG9zdCBdICYmIHByaW50ZiAnJXNcdCVzXG4nICIkYSIgIiRuYW1lcyIKCWRvbmUgPCIkc3BlYyIgPiIkc2NyYXRjaC9ob3N0cyIKCVsgLXMgIiRzY3JhdGNoL2hvc3RzIiBdIHx8IHJldHVybiAwCglpZiBbIC1mIC9ldGMvaG9zdHMgXTsgdGhlbgoJCWNhdCAvZXRjL2hvc3RzID4+IiRzY3JhdGNoL2hvc3RzIgoJZmkKCW1vdW50cG9pbnQgL2V0Yy9ob3N0cyAiJHNjcmF0Y2gvaG9zdHMiCgltb3VudCAtLWJpbmQgIiRzY3JhdGNoL2hvc3RzIiAiJHJvb3QvZXRjL2hvc3RzIiB8fCBmYWlsICJjYW5ub3QgbW91bnQgdGhlIHRhc2sncyAvZXRjL2hvc3RzIgp9CgppZiBbICIkbW9kZSIgIT0gbm9uZSBdOyB0aGVuCgluYW1lPSQoZ2V0IGhvc3RuYW1lKSB8fCBuYW1lPScnCglpZiBbIC1uICIkbmFtZSIgXTsgdGhlbgoJCSMgc2V0aG9zdG5hbWUoMikgdGhyb3VnaCBob3N0bmFtZSgxKTogL3Byb2Mvc3lzL2tlcm5lbC9ob3N0bmFtZQoJCSMgYmVsb25ncyB0byB0aGUgaG9zdCdzIHJvb3QsIG5vdCB0byBhIHVzZXIgbmFtZXNwYWNlJ3MuCgkJeyBjb21tYW5kIC12IGhvc3RuYW1lID4vZGV2L251bGwgMj4mMSAmJiBob3N0bmFtZSAiJG5hbWUiOyB9IHx8CgkJCXsgcHJpbnRmICclcycgIiRuYW1lIiA+L3Byb2Mvc3lzL2tlcm5lbC9ob3N0bmFtZTsgfSAyPi9kZXYvbnVsbCB8fAoJCQlmYWlsICJjYW5ub3Qgc2V0IHRoZSBob3N0IG5hbWUgJG5hbWUiCgkJSE9TVE5BTUU9JG5hbWUKCQlleHBvcnQgSE9TVE5BTUUKCWZpCgliaW5kcwoJaG9zdHMKZmkKCiMgaWZhY2UgQUREUiBwcmludHMgdGhlIGludGVyZmFjZSB0aGF0IGhvbGRzIEFERFIuCmlmYWNlKCkgewoJYT0kMQoJY2FzZSAkYSBpbgoJKlshMC05LjphLWZBLUZdKikgYT0kKGdldGVudCBhaG9zdHMgIiRhIiAyPi9kZXYvbnVsbCB8IHsgcmVhZCAtciB4IF8gJiYgcHJpbnRmICclcycgIiR4IjsgfSkgOzsKCWVzYWMKCVsgLW4gIiRhIiBdIHx8IHJldHVybiAxCgljb21tYW5kIC12IGlwID4vZGV2L251bGwgMj4mMSB8fCByZXR1cm4gMQoJaXAgLW8gYWRkciBzaG93IDI+L2Rldi9udWxsIHwgd2hpbGUgcmVhZCAtciBfIGRldiBmYW0gY2lkciBfOyBkbwoJCWNhc2UgJGZhbSBpbiBpbmV0IHwgaW5ldDYpIDs7ICopIGNvbnRpbnVlIDs7IGVzYWMKCQlpZiBbICIke2NpZHIlLyp9IiA9ICIkYSIgXTsgdGhlbgoJCQlwcmludGYgJyVzXG4nICIke2RldiUlQCp9IgoJCQlicmVhawoJCWZpCglkb25lCn0KCiMgUGxhdGZvcm0gYWRkaXRpb25zLCBsaWtlIHRoZSBob3N0ZmlsZSB2YXJpYWJsZXM6IG5ldmVyIG92ZXIgd2hhdCBpcyBzZXQuCmlmIGFkZHI9JChnZXQgYWRkcikgJiYgZGV2PSQoaWZhY2UgIiRhZGRyIikgJiYgWyAtbiAiJGRldiIgXTsgdGhlbgoJZm9yIHYgaW4gT01QSV9NQ0FfYnRsX3RjcF9pZl9pbmNsdWRlIE9NUElfTUNBX29vYl90Y3BfaWZfaW5jbHVkZSBHTE9PX1NPQ0tFVF9JRk5BTUUgTkNDTF9TT0NLRVRfSUZOQU1FOyBkbwoJCWV2YWwgIlsgLW4gXCJcJHskdit4fVwiIF0gfHwgeyAkdj1cJGRldjsgZXhwb3J0ICR2OyB9IgoJZG9uZQpmaQoKIyBBIHVzZXIgbmFtZXNwYWNlJ3Mgcm9vdCBnb2VzIGJhY2sgdG8gdGhlIGNhbGxlcidzIG93biB1aWQgYW5kIGdpZCBmb3IKIyB0aGUgY29tbWFuZCAoYSBuZXN0ZWQgdXNlciBuYW1lc3BhY2UgbWFwcGluZyB0aGVtIG9udG8gb3VycykuIFRoZSBuZXcKIyByb290LCBpZiBhbnksIGlzIGVudGVyZWQgbGFzdDogYSBjaHJvb3RlZCBwcm9jZXNzIG1heSBub3QgbWFrZSBhIHVzZXIKIyBuYW1lc3BhY2UsIGFuZCB1bnNoYXJlKDEpIGVudGVycyBpdCBhZnRlciBtYWtpbmcgb25lLgpzZXQgLS0gLS13ZD0iJChwd2QpIiAtLSAiJEAiCmlmIFsgLW4gIiRyb290IiBdOyB0aGVuCglzZXQgLS0gLS1yb290PSIkcm9vdCIgIiRAIgpmaQppZiBbICIkbW9kZSIgPSB1c2VyIF07IHRoZW4KCWlkcz0ke2luc2lkZSN1c2VyIH0KCXNldCAtLSAtLXVzZXIgLS1tYXAtdXNlcj0iJHtpZHMlICp9IiAtLW1hcC1ncm91cD0iJHtpZHMjKiB9IiAiJEAiCmZpCmV4ZWMgIiQoY29tbWFuZCAtdiB1bnNoYXJlKSIgIiRAIgo=\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0644"
      }
      template {
        destination = "local/jobshift-taskns.spec"
        data        = "{{ base64Decode \"bW9kZQlhdXRvCnNjcmF0Y2gJ\" }}{{ env \"NOMAD_TASK_DIR\" }}{{ base64Decode \"L2pvYnNoaWZ0LXRhc2tucy5kCmhvc3RuYW1lCXdvcmtlci0=\" }}{{ env \"NOMAD_ALLOC_INDEX\" }}{{ base64Decode \"Cmhvc3QJ\" }}{{ env \"NOMAD_IP_synport_0\" }}{{ base64Decode \"CXdvcmtlci0=\" }}{{ env \"NOMAD_ALLOC_INDEX\" }}{{ base64Decode \"CmFkZHIJ\" }}{{ env \"NOMAD_IP_synport_0\" }}{{ base64Decode \"Cg==\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0644"
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
      port "synport_0" {
      }
    }
    meta {
      jobshift_env    = "template over registrations"
      jobshift_judges = "none in the job (a controller or watch -enforce)"
      jobshift_role   = "worker"
    }
    service {
      name     = "alice-mesh-worker-synport-0"
      tags     = ["idx-$${NOMAD_ALLOC_INDEX}"]
      port     = "synport_0"
      provider = "nomad"
    }
  }
  meta {
    jobshift_attempt = "0"
    jobshift_format  = "pai-v1"
    jobshift_name    = "mesh"
    jobshift_policy  = "{\"name\":\"mesh\",\"kind\":\"pai\",\"format\":\"pai-v1\",\"completion\":{\"kind\":\"pai\",\"pos\":{}},\"retry\":{\"jobRetryCount\":0,\"gangAllocation\":false,\"pos\":{}},\"roles\":[{\"name\":\"ps\",\"instances\":2,\"minFailed\":1,\"minSucceeded\":-1},{\"name\":\"worker\",\"instances\":2,\"minFailed\":1,\"minSucceeded\":null}]}"
    jobshift_shape   = "unwatched: for nomad job run; jobshift convert -watched writes what jobshift run submits"
    jobshift_source  = "job.json"
    jobshift_user    = "alice"
    jobshift_version = "0.1.0-dev"
  }
}
