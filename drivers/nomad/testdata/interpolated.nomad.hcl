# jobshift: unwatched: for nomad job run; jobshift convert -watched writes what jobshift run submits
#
# shape: unwatched (nothing outside the job: nomad job run, run -detach); rendezvous barrier
# group ps (raw_exec): env template over registrations; judged by none in the job (a controller or watch -enforce)
#   task jobshift-barrier (prestart)
#   task main > task namespace > restart loop > command
# group worker (raw_exec): env template over registrations; judged by none in the job (a controller or watch -enforce)
#   task jobshift-barrier (prestart)
#   task main > task namespace > restart loop > command
# why: rendezvous barrier: nobody watches the job to write a snapshot (convert -watched, or run, gives the snapshot)
# why (ps): env: template over the group services (no snapshot)
# why (ps): task namespace: the command runs as a plain process, which gets its platform host name and files from the wrapper
# why (worker): env: template over the group services (no snapshot)
# why (worker): task namespace: the command runs as a plain process, which gets its platform host name and files from the wrapper

job "alice~x-y-z" {
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
        args    = ["-c", "n=0\nwhile :; do\n  l=\n  IFS= read -r l < \"$NOMAD_TASK_DIR/barrier\" 2>/dev/null\n  [ \"$l\" = READY ] && exit 0\n  n=$((n+1))\n  if [ \"$n\" -gt 1200 ]; then\n    echo \"jobshift: barrier timeout: after 2m0s not every task of job alice~x-y-z was placed and registered; still missing: $l. Check 'nomad job status alice~x-y-z' for allocations that could not be placed (not enough CPU, memory or GPUs) or that ended early; the timeout is nomad.barrier_timeout in the site config.\" >&2\n    exit 1\n  fi\n  sleep 0.1\ndone\n"]
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
{{- range $s := nomadService "alice-x-y-z-ps-synport-0" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "0/" .) true }}{{ end }}{{ end }}{{ end -}}
{{- range $i := loop 2 }}{{ if not (scratch.Key (print "0/idx-" $i)) }}{{ $missing = printf "%s %s-%d" $missing "ps" $i }}{{ end }}{{ end -}}
{{- range $s := nomadService "alice-x-y-z-worker-synport-0" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "1/" .) true }}{{ end }}{{ end }}{{ end -}}
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
        args    = ["$${NOMAD_TASK_DIR}/jobshift-taskns.sh", "$${NOMAD_TASK_DIR}/jobshift-taskns.spec", "--", "/bin/sh", "-c", "_t_kind=pai\n_t_gang=0\n_t_bl=-1\n_t_classes=uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuutuuuuuuuuuuuuuuuuuuuuuuutuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuutuupupuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu\n_t_bo_init=10000 _t_bo_max=300000\n_t_tretry_0=0\n_t_tretry_1=0\n_t_role=0\n_s_frac=\n_s_pid=\njs_counter_add() {\n\t_l_n=0\n\tuntil mkdir \"$1.lock\" 2>/dev/null; do\n\t\tsleep 0.05\n\t\t_l_n=$((_l_n + 1))\n\t\t[ \"$_l_n\" -gt 200 ] && rmdir \"$1.lock\" 2>/dev/null\n\tdone\n\t_l_v=$(cat \"$1\" 2>/dev/null || echo 0)\n\techo $((_l_v + 1)) >\"$1\"\n\trmdir \"$1.lock\"\n}\njs_nth_is() {\n\t_q_p=\n\t_q_k=1\n\twhile [ \"$_q_k\" -lt \"$2\" ]; do\n\t\t_q_p=\"$_q_p?\"\n\t\t_q_k=$((_q_k + 1))\n\tdone\n\tcase $1 in\n\t$_q_p\"$3\"*) return 0 ;;\n\tesac\n\treturn 1\n}\njs_restart() {\n\tcase $_t_kind in\n\tpai)\n\t\t[ \"$_t_gang\" = 1 ] && return 1\n\t\t[ \"$2\" = 0 ] && return 1\n\t\tif [ \"$2\" -ge 0 ] && [ \"$2\" -le 255 ]; then\n\t\t\tjs_nth_is \"$_t_classes\" $(($2 + 1)) t && return 0\n\t\t\tjs_nth_is \"$_t_classes\" $(($2 + 1)) p && return 1\n\t\tfi\n\t\teval \"_r_max=\\$_t_tretry_$1\"\n\t\t_r_f=$3/restarts.$1.$4\n\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\tif [ \"$_r_max\" = -1 ] || [ \"$_r_so\" -lt \"$_r_max\" ]; then\n\t\t\tjs_counter_add \"$_r_f\"\n\t\t\treturn 0\n\t\tfi\n\t\treturn 1\n\t\t;;\n\ttf | pytorch)\n\t\t[ \"$2\" -ge 0 ] && [ \"$2\" -le 255 ] || return 1\n\t\teval \"_r_rs=\\$_t_rs_$1\"\n\t\tjs_nth_is \"$_r_rs\" $(($2 + 1)) 1 || return 1\n\t\t_r_f=$3/restarts.job\n\t\tif [ \"$_t_bl\" -ge 0 ]; then\n\t\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\t\t[ $((_r_so + 1)) -ge \"$_t_bl\" ] && return 1\n\t\tfi\n\t\tjs_counter_add \"$_r_f\"\n\t\treturn 0\n\t\t;;\n\tesac\n\treturn 1\n}\njs_backoff() {\n\tif [ \"$1\" -le 0 ] || [ \"$2\" -gt $((2 * _t_bo_max)) ]; then\n\t\t_b_wait=0\n\t\t_b_streak=1\n\t\treturn\n\tfi\n\t_b_wait=$_t_bo_init\n\t_b_n=1\n\twhile [ \"$_b_n\" -lt \"$1\" ] && [ \"$_b_wait\" -lt \"$_t_bo_max\" ]; do\n\t\t_b_wait=$((_b_wait * 2))\n\t\t_b_n=$((_b_n + 1))\n\tdone\n\t[ \"$_b_wait\" -gt \"$_t_bo_max\" ] && _b_wait=$_t_bo_max\n\t_b_streak=$(($1 + 1))\n}\njs_now_ms() {\n\t_n_ns=$(date +%s%N)\n\tcase $_n_ns in\n\t'' | *[!0-9]*) echo $(($(date +%s) * 1000)) ;;\n\t*) echo $((_n_ns / 1000000)) ;;\n\tesac\n}\njs_sleep_ms() {\n\t[ \"$_k_stop\" = 1 ] && return 0\n\tif [ -z \"$_s_frac\" ]; then\n\t\t_s_frac=0\n\t\tsleep 0.001 2>/dev/null && _s_frac=1\n\tfi\n\tif [ \"$_s_frac\" = 1 ]; then\n\t\tsleep \"$(($1 / 1000)).$(printf '%03d' $(($1 % 1000)))\" &\n\telse\n\t\tsleep $((($1 + 999) / 1000)) &\n\tfi\n\t_s_pid=$!\n\t[ \"$_k_stop\" = 1 ] && kill -KILL \"$_s_pid\" 2>/dev/null\n\twait \"$_s_pid\"\n\tkill -KILL \"$_s_pid\" 2>/dev/null\n\twait \"$_s_pid\" 2>/dev/null\n\t_s_pid=\n\treturn 0\n}\n_k_stop=0\n_k_child=\n_k_setsid=\ncommand -v setsid >/dev/null 2>&1 && _k_setsid=setsid\ntrap '_k_stop=1; [ -n \"$_k_child\" ] && { kill -TERM \"-$_k_child\" 2>/dev/null || kill -TERM \"$_k_child\" 2>/dev/null; }; [ -n \"$_s_pid\" ] && kill -KILL \"$_s_pid\" 2>/dev/null' TERM INT\n_k_dir=$NOMAD_TASK_DIR\n[ -n \"$_k_dir\" ] || _k_dir=.\n_k_i=$NOMAD_ALLOC_INDEX\n[ -n \"$_k_i\" ] || _k_i=0\n_k_streak=0\n_k_rc=0\nwhile :; do\n\t_k_t0=$(js_now_ms)\n\t$_k_setsid \"$@\" &\n\t_k_child=$!\n\t[ \"$_k_stop\" = 1 ] && { kill -TERM \"-$_k_child\" 2>/dev/null || kill -TERM \"$_k_child\" 2>/dev/null; }\n\twait \"$_k_child\"\n\t_k_rc=$?\n\twhile kill -0 \"$_k_child\" 2>/dev/null; do\n\t\twait \"$_k_child\"\n\t\t_k_rc=$?\n\tdone\n\tif [ \"$_k_stop\" = 1 ]; then\n\t\twhile kill -0 \"-$_k_child\" 2>/dev/null; do sleep 0.1; done\n\tfi\n\t_k_child=\n\t_k_t1=$(js_now_ms)\n\techo \"$_k_t0 $_k_t1 $_k_rc\" >>\"$_k_dir/jobshift-runs\"\n\t[ \"$_k_stop\" = 1 ] && break\n\tjs_restart \"$_t_role\" \"$_k_rc\" \"$_k_dir\" \"$_k_i\" || break\n\tjs_backoff \"$_k_streak\" $((_k_t1 - _k_t0))\n\t_k_streak=$_b_streak\n\tprintf 'jobshift: task exited with %s; restarting it in place after %s ms (kubelet CrashLoopBackOff)\\n' \"$_k_rc\" \"$_b_wait\" >&2\n\tif [ \"$_b_wait\" -gt 0 ]; then\n\t\tjs_sleep_ms \"$_b_wait\"\n\t\t[ \"$_k_stop\" = 1 ] && break\n\tfi\ndone\nexit \"$_k_rc\"\n", "jobshift-restart", "bash", "-c", "IFS= read -r -d '' _jsh_cmd <\"$1\"; set -- \"$_jsh_cmd\"; unset _jsh_cmd; eval \"$1\" || exit $?", "_", "$${NOMAD_TASK_DIR}/jobshift-command"]
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
{{- $h := "" -}}{{- $all := nomadService "alice-x-y-z-ps-synport-0" -}}{{- range $i := loop 2 -}}{{- range $all -}}{{- if and (eq .JobID (env "NOMAD_JOB_ID")) (.Tags | contains (printf "idx-%d" $i)) -}}{{- if ne $h "" }}{{ $h = printf "%s," $h }}{{ end -}}{{- $h = printf "%s%s:%d" $h .Address .Port -}}{{- end -}}{{- end -}}{{- end }}
JS_HOSTS_PS={{ $h }}
{{- $h := "" -}}{{- $all := nomadService "alice-x-y-z-worker-synport-0" -}}{{- range $i := loop 2 -}}{{- range $all -}}{{- if and (eq .JobID (env "NOMAD_JOB_ID")) (.Tags | contains (printf "idx-%d" $i)) -}}{{- if ne $h "" }}{{ $h = printf "%s," $h }}{{ end -}}{{- $h = printf "%s%s:%d" $h .Address .Port -}}{{- end -}}{{- end -}}{{- end }}
JS_HOSTS_WORKER={{ $h }}
JS_ROLE=ps
JS_INDEX={{ env "NOMAD_ALLOC_INDEX" }}
EOT
        change_mode = "noop"
        once        = true
        env         = true
      }
      template {
        destination = "local/jobshift-command"
        data        = "{{ base64Decode \"ZWNobyAke0hPTUV9ICd7eyAieCIgfX0nICV7eH0=\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0755"
      }
      template {
        destination = "local/jobshift-taskns.sh"
        data        = "{{ base64Decode \"IyBqb2JzaGlmdCB0YXNrIG5hbWVzcGFjZTogd2hhdCBhIHBvZCBvciBjb250YWluZXIgZ2F2ZSBlYWNoIHRhc2sgYmVzaWRlcwojIGl0cyBjb21tYW5kLCByZWJ1aWx0IGZvciBhIHBsYWluIHByb2Nlc3MgKFNsdXJtIHN0ZXAsIE5vbWFkIHJhd19leGVjIG9yCiMgZXhlYyB0YXNrLCBsb2NhbCBwcm9jZXNzKToKIyAgIC0gaXRzIG93biBob3N0IG5hbWUgKGhvc3RuYW1lLCBnZXRob3N0bmFtZSgpLCAkSE9TVE5BTUUpLCBpbiBhIHByaXZhdGUKIyAgICAgVVRTIG5hbWVzcGFjZTsKIyAgIC0gYW4gL2V0Yy9ob3N0cyB3aGVyZSBpdHMgb3duIGFuZCBpdHMgcGVlcnMnIHBsYXRmb3JtIG5hbWVzIHJlc29sdmUgdG8KIyAgICAgdGhlaXIgYWRkcmVzc2VzLCBhbmQgZGF0YSBhbmQgcGxhdGZvcm0gZmlsZXMgYXQgdGhlIGpvYidzIG93biBwYXRocywKIyAgICAgaW4gYSBwcml2YXRlIG1vdW50IG5hbWVzcGFjZSAobm90aGluZyByZWFjaGVzIHRoZSBob3N0J3MgbW91bnQgdGFibGUpOwojICAgLSB0aGUgaW50ZXJmYWNlIGNhcnJ5aW5nIHRoZSB0YXNrJ3MgYWRkcmVzcywgZm9yIHRoZSBjb2xsZWN0aXZlCiMgICAgIGxpYnJhcmllcyAoT3Blbk1QSSwgR2xvbywgTkNDTCksIHVubGVzcyB0aGUgam9iIHNldCB0aGVtIGl0c2VsZi4KIyBUaGVuIGl0IGV4ZWNzIHRoZSBjb21tYW5kIHdpdGggaXRzIGFyZ3VtZW50cyB1bmNoYW5nZWQuCiMKIyBVc2FnZTogc2ggdGFza25zLnNoIFNQRUMgLS0gY29tbWFuZCBbYXJncy4uLl0KIyBTUEVDIGhvbGRzIG9uZSBpdGVtIHBlciBsaW5lLCBmaWVsZHMgc2VwYXJhdGVkIGJ5IG9uZSBUQUIgKGRyaXZlcnMvdGFza25zCiMgd3JpdGVzIGl0IGFuZCByZWZ1c2VzIHZhbHVlcyBob2xkaW5nIGEgVEFCIG9yIGEgbmV3bGluZSk6CiMgICBtb2RlICAgIHJvb3QgfCB1c2VyIHwgbm9uZSB8IGF1dG8KIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICByb290OiB1bnNoYXJlIHRoZSBtb3VudCBhbmQgVVRTIG5hbWVzcGFjZXM7CiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgdXNlcjogdGhlIHNhbWUgaW5zaWRlIGEgdXNlciBuYW1lc3BhY2UKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAodW5wcml2aWxlZ2VkKSwgdGhlIGNvbW1hbmQgdGhlbiBydW5zCiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgdW5kZXIgdGhlIGNhbGxlcidzIG93biB1aWQgYW5kIGdpZCBhZ2FpbjsKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICBub25lOiBvbmx5IHRoZSBpbnRlcmZhY2UgdmFyaWFibGVzOwojICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIGF1dG86IHRoZSBmaXJzdCBvZiByb290IGFuZCB1c2VyIHRoaXMKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICBub2RlIGFsbG93cywgZWxzZSBub25lIHdpdGggYSB3YXJuaW5nCiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgKHJlZnVzZWQgd2hlbiB0aGUgc3BlYyBoYXMgYSBiaW5kKQojICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIChhIHRhcmdldCB0aGF0IGtub3dzIG5vdGhpbmcgb2YgaXRzCiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgbm9kZXMgd2hlbiBpdCByZW5kZXJzOiBOb21hZCkKIyAgIHNjcmF0Y2ggRElSICAgICAgICAgICAgICAgICAgIHRoaXMgc3RhcnQncyBwcml2YXRlIGRpcmVjdG9yeQojICAgaG9zdG5hbWUgTkFNRQojICAgaG9zdCAgICBBRERSIE5BTUUuLi4gICAgICAgICAgYW4gL2V0Yy9ob3N0cyBsaW5lIChuYW1lcyBzcGFjZS1zZXBhcmF0ZWQpCiMgICBiaW5kICAgIHJvfHJ3IFNSQyBEU1QgW1RSRUUgW25vbGlua11dCiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICBhIGRpcmVjdG9yeSBvciBmaWxlIGF0IHRoZSBqb2IncyBwYXRoOwojICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgd2l0aCBUUkVFLCBTUkMgbXVzdCBzdGF5IGluc2lkZSBUUkVFIG9uY2UKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIGxpbmtzIGFyZSByZXNvbHZlZCAodGhlIHJlc29sdmVkIHBhdGggaXMKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIG1vdW50ZWQpLCBhbmQgd2l0aCBub2xpbmsgVFJFRSBtdXN0IG5vdCBiZQojICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgYSBsaW5rIGl0c2VsZiAoYSB1c2VyJ3Mgb3duIGRpcmVjdG9yeSkKIyAgIGVtcHR5ICAgZGlza3xtZW1vcnkgU0laRSBEU1QgIGFuIGVtcHR5RGlyIGF0IERTVDogYSBmcmVzaCBkaXJlY3Rvcnkgb2YKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIHRoZSBzY3JhdGNoIGRpcmVjdG9yeSAoZGlzayksIG9yIGEgdG1wZnMKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIChtZW1vcnkpIG9mIFNJWkUgTWlCICgwOiBubyBzaXplIGdpdmVuKQojICAgYWRkciAgICBBRERSICAgICAgICAgICAgICAgICAgdGhlIHRhc2sncyBvd24gYWRkcmVzcyAoYW4gSVAsIG9yIGEgbmFtZQojICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIHJlc29sdmVkIHdpdGggZ2V0ZW50KQojIEV4aXQgY29kZSAxMjcgd2hlbiB0aGUgdmlldyBjYW5ub3QgYmUgYnVpbHQgKHRoZSBjb21tYW5kIG5ldmVyIHJhbikuCgpzZXQgLXUKZmFpbCgpIHsKCXByaW50ZiAnam9ic2hpZnQgdGFzayBuYW1lc3BhY2U6ICVzXG4nICIkKiIgPiYyCglleGl0IDEyNwp9ClsgJCMgLWdlIDMgXSAmJiBbICIkMiIgPSAtLSBdIHx8IGZhaWwgInVzYWdlOiB0YXNrbnMuc2ggU1BFQyAtLSBjb21tYW5kIFthcmdzLi4uXSIKc3BlYz0kMQpzaGlmdCAyCnRhYj0kKHByaW50ZiAnXHQnKQoKIyBnZXQgS0VZIHByaW50cyB0aGUgZmlyc3QgdmFsdWUgb2YgS0VZICh0aGUgcmVzdCBvZiBpdHMgbGluZSkuCmdldCgpIHsKCXdoaWxlIElGUz0gcmVhZCAtciBsaW5lOyBkbwoJCWNhc2UgJGxpbmUgaW4gIiQxJHRhYiIqKQoJCQlwcmludGYgJyVzXG4nICIke2xpbmUjKiIkdGFiIn0iCgkJCXJldHVybiAwCgkJCTs7CgkJZXNhYwoJZG9uZSA8IiRzcGVjIgoJcmV0dXJuIDEKfQoKbW9kZT0kKGdldCBtb2RlKSB8fCBmYWlsICJubyBtb2RlIGluICRzcGVjIgppbnNpZGU9JHtKT0JTSElGVF9UQVNLTlNfSU5TSURFOi19CmlmIFsgIiRtb2RlIiA9IGF1dG8gXSAmJiBbIC16ICIkaW5zaWRlIiBdOyB0aGVuCgltb2RlPW5vbmUKCWlmIFsgIiQoaWQgLXUpIiA9IDAgXSAmJiB1bnNoYXJlIC0tbW91bnQgLS11dHMgLS1wcm9wYWdhdGlvbiBwcml2YXRlIHRydWUgMj4vZGV2L251bGw7IHRoZW4KCQltb2RlPXJvb3QKCWVsaWYgdW5zaGFyZSAtLXVzZXIgLS1tYXAtcm9vdC11c2VyIC0tbW91bnQgLS11dHMgdHJ1ZSAyPi9kZXYvbnVsbDsgdGhlbgoJCW1vZGU9dXNlcgoJZWxpZiBbIC1uICIkKGdldCBob3N0bmFtZSkiIF07IHRoZW4KCQlwcmludGYgJyVzXG4nICJqb2JzaGlmdDogd2FybmluZzogdGhpcyB0YXNrIGtlZXBzIHRoZSBub2RlJ3MgaG9zdCBuYW1lLCBub3QgJChnZXQgaG9zdG5hbWUpIChubyBwcml2YXRlIFVUUyBuYW1lc3BhY2U6IG5vdCByb290LCBhbmQgdW5wcml2aWxlZ2VkIHVzZXIgbmFtZXNwYWNlcyBhcmUgbm90IGFsbG93ZWQpOyBPcGVuTVBJJ3Mgc2hhcmVkLW1lbW9yeSB0cmFuc3BvcnQsIE5DQ0wgYW5kIEhvcm92b2QgdGFrZSB0YXNrcyB3aXRoIG9uZSBob3N0IG5hbWUgZm9yIG9uZSBub2RlOyBhbGxvdyB0aGVtIG9uIHRoZSBub2RlcyAoc3lzY3RsIGtlcm5lbC51bnByaXZpbGVnZWRfdXNlcm5zX2Nsb25lPTEsIHVzZXIubWF4X3VzZXJfbmFtZXNwYWNlcyA+IDApIG9yIHJ1biB0aGUgdGFzayBpbiBhIGNvbnRhaW5lciIgPiYyCglmaQoJaWYgWyAiJG1vZGUiID0gbm9uZSBdICYmIHsgYmluZD0kKGdldCBiaW5kKSB8fCBiaW5kPSQoZ2V0IGVtcHR5KTsgfTsgdGhlbgoJCSMgZGF0YSBvciBhIGZpbGUgdGhlIGpvYiBuZWVkcyBhdCBpdHMgcGF0aDogbmV2ZXIgc3RhcnQgd2l0aG91dCBpdAoJCWJpbmQ9JChwcmludGYgJyVzXG4nICIkYmluZCIgfCB7IElGUz0iJHRhYiIgcmVhZCAtciBfIF8gZCBfICYmIHByaW50ZiAnJXMnICIkZCI7IH0pCgkJZmFpbCAidGhlIHRhc2sgbmVlZHMgJGJpbmQgYXQgdGhlIHBhdGggdGhlIGpvYiBuYW1lcywgd2hpY2ggYSBwbGFpbiBwcm9jZXNzIGdldHMgb25seSB0aHJvdWdoIGEgcHJpdmF0ZSBtb3VudCBuYW1lc3BhY2UsIGFuZCB0aGlzIG5vZGUgYWxsb3dzIG5vbmUgKG5vdCByb290LCBhbmQgdW5wcml2aWxlZ2VkIHVzZXIgbmFtZXNwYWNlcyBhcmUgbm90IGFsbG93ZWQpOyBhbGxvdyB0aGVtIG9uIHRoZSBub2RlcyAoc3lzY3RsIGtlcm5lbC51bnByaXZpbGVnZWRfdXNlcm5zX2Nsb25lPTEsIHVzZXIubWF4X3VzZXJfbmFtZXNwYWNlcyA+IDApLCBydW4gdGhlIGpvYidzIHRhc2tzIGFzIHJvb3QsIG9yIHVzZSBhIGNvbnRhaW5lciBkcml2ZXIgKG5vbWFkLmRyaXZlciA9IFwiZG9ja2VyXCIpIgoJZmkKCVsgIiRtb2RlIiA9IG5vbmUgXSB8fCBKT0JTSElGVF9UQVNLTlNfTU9ERT0kbW9kZQpmaQptb2RlPSR7Sk9CU0hJRlRfVEFTS05TX01PREU6LSRtb2RlfQppZiBbICIkbW9kZSIgIT0gbm9uZSBdICYmIFsgLXogIiRpbnNpZGUiIF07IHRoZW4KCXVuc2hhcmU9JChjb21tYW5kIC12IHVuc2hhcmUpIHx8IGZhaWwgInVuc2hhcmUgKHV0aWwtbGludXgpIG5vdCBmb3VuZCBvbiBQQVRIIgoJY2FzZSAkbW9kZSBpbgoJcm9vdCkKCQlKT0JTSElGVF9UQVNLTlNfTU9ERT1yb290IEpPQlNISUZUX1RBU0tOU19JTlNJREU9cm9vdCBleGVjICIkdW5zaGFyZSIgLS1tb3VudCAtLXV0cyAtLXByb3BhZ2F0aW9uIHByaXZhdGUgL2Jpbi9zaCAiJDAiICIkc3BlYyIgLS0gIiRAIgoJCTs7Cgl1c2VyKQoJCUpPQlNISUZUX1RBU0tOU19NT0RFPXVzZXIgSk9CU0hJRlRfVEFTS05TX0lOU0lERT0idXNlciAkKGlkIC11KSAkKGlkIC1nKSIgZXhlYyAiJHVuc2hhcmUiIC0tdXNlciAtLW1hcC1yb290LXVzZXIgLS1tb3VudCAtLXV0cyAtLXByb3BhZ2F0aW9uIHByaXZhdGUgL2Jpbi9zaCAiJDAiICIkc3BlYyIgLS0gIiRAIgoJCTs7CgkqKSBmYWlsICJ1bmtub3duIG1vZGUgJG1vZGUiIDs7Cgllc2FjCmZpCnVuc2V0IEpPQlNISUZUX1RBU0tOU19JTlNJREUgSk9CU0hJRlRfVEFTS05TX01PREUKCnNjcmF0Y2g9JChnZXQgc2NyYXRjaCkgfHwgc2NyYXRjaD0nJwppZiBbIC1uICIkc2NyYXRjaCIgXTsgdGhlbgoJbWtkaXIgLXAgIiRzY3JhdGNoIiB8fCBmYWlsICJjYW5ub3QgbWFrZSAkc2NyYXRjaCIKZmkKcm9vdD0nJyAgICAjIHRoZSBuZXcgcm9vdCB3aGVuIC8gaGFkIHRvIGJlIHVuZGVybGFpZCAodGhlbiBjaHJvb3QpCnVuZGVyPTAKCiMgdW5kZXJsYXkgRElSIG1ha2VzIERJUiB3cml0YWJsZSBpbiB0aGlzIG5hbWVzcGFjZSBvbmx5OiBhIHRtcGZzIGhvbGRpbmcKIyB0aGUgc2FtZSBlbnRyaWVzIChkaXJlY3RvcmllcyBhbmQgZmlsZXMgYm91bmQsIGxpbmtzIGNvcGllZCkgaXMgbW91bnRlZAojIG92ZXIgaXQsIHNvIGEgbWlzc2luZyBtb3VudCBwb2ludCBjYW4gYmUgbWFkZSB3aXRob3V0IHRvdWNoaW5nIHRoZSBob3N0Lgp1bmRlcmxheSgpIHsKCVsgLW4gIiRzY3JhdGNoIiBdIHx8IGZhaWwgIm5vIHNjcmF0Y2ggZGlyZWN0b3J5IHRvIGJ1aWxkICQxIGluIgoJdW5kZXI9JCgodW5kZXIgKyAxKSkKCXU9JHNjcmF0Y2gvdW5kZXJsYXktJHVuZGVyCglta2RpciAtcCAiJHUiICYmIG1vdW50IC10IHRtcGZzIC1vIG1vZGU9NzU1IGpvYnNoaWZ0LXVuZGVybGF5ICIkdSIgfHwgZmFpbCAiY2Fubm90IG1vdW50IGEgdG1wZnMgb24gJHUiCglmb3IgZSBpbiAiJHJvb3QkMSIvKiAiJHJvb3QkMSIvLlshLl0qICIkcm9vdCQxIi8uLj8qOyBkbwoJCVsgLWUgIiRlIiBdIHx8IFsgLUwgIiRlIiBdIHx8IGNvbnRpbnVlCgkJYj0ke2UjIyovfQoJCWlmIFsgLUwgIiRlIiBdOyB0aGVuCgkJCWxuIC1zICIkKHJlYWRsaW5rICIkZSIpIiAiJHUvJGIiCgkJZWxpZiBbIC1kICIkZSIgXTsgdGhlbgoJCQlta2RpciAiJHUvJGIiICYmIG1vdW50IC0tcmJpbmQgIiRlIiAiJHUvJGIiCgkJZWxzZQoJCQk6ID4iJHUvJGIiICYmIG1vdW50IC0tYmluZCAiJGUiICIkdS8kYiIKCQlmaSB8fCBmYWlsICJjYW5ub3Qgc2hvdyAkZSBpbiB0aGUgdGFzaydzIHZpZXcgb2YgJDEiCglkb25lCglpZiBbICIkMSIgPSAvIF07IHRoZW4KCQlyb290PSR1CgllbHNlCgkJbW91bnQgLS1yYmluZCAiJHUiICIkcm9vdCQxIiB8fCBmYWlsICJjYW5ub3QgbW91bnQgdGhlIHRhc2sncyB2aWV3IG9mICQxIgoJZmkKfQoKIyBtb3VudHBvaW50IERTVCBTUkMgbWFrZXMgRFNUIChhIGRpcmVjdG9yeSB3aGVuIFNSQyBpcyBvbmUsIGVsc2UgYSBmaWxlKS4KbW91bnRwb2ludCgpIHsKCVsgLWUgIiRyb290JDEiIF0gJiYgcmV0dXJuIDAKCWE9JDEKCXdoaWxlIFsgISAtZSAiJHJvb3QkYSIgXSAmJiBbICEgLUwgIiRyb290JGEiIF07IGRvCgkJYT0kKGRpcm5hbWUgIiRhIikKCWRvbmUKCVsgLWQgIiRyb290JGEiIF0gfHwgZmFpbCAiJGEgaXMgbm90IGEgZGlyZWN0b3J5LCBzbyAkMSBjYW5ub3QgYmUgbWFkZSIKCXVuZGVybGF5ICIkYSIKCWlmIFsgLWQgIiQyIiBdOyB0aGVuCgkJbWtkaXIgLXAgIiRyb290JDEiCgllbHNlCgkJbWtkaXIgLXAgIiRyb290JChkaXJuYW1lICIkMSIpIiAmJiA6ID4iJHJvb3QkMSIKCWZpIHx8IGZhaWwgImNhbm5vdCBtYWtlICQxIGluIHRoZSB0YXNrJ3MgdmlldyIKfQoKIyBpbnRyZWUgU1JDIFRSRUUgW25vbGlua10gcHJpbnRzIFNSQyB3aXRoIGl0cyBsaW5rcyByZXNvbHZlZCwgZmFpbGluZwojIHdoZW4gdGhhdCBsZWF2ZXMgVFJFRSAocmVzb2x2ZWQgdG9vKSwgb3IsIHdpdGggbm9saW5rLCB3aGVuIFRSRUUgaXMgYQojIGxpbms6IG5vdGhpbmcgb3V0c2lkZSBhIG1hcHBlZCB0cmVlIGJlY29tZXMgdmlzaWJsZSB0byB0aGUgdGFzay4KaW50cmVlKCkgewoJaWYgWyAiJHszOi19IiA9IG5vbGluayBdICYmIFsgLUwgIiQyIiBdOyB0aGVuCgkJZmFpbCAiJDIgaXMgYSBzeW1ib2xpYyBsaW5rLCB3aGljaCB3b3VsZCBzaG93IHRoZSB0YXNrIGFub3RoZXIgdHJlZSB0aGFuIHRoZSBvbmUgbWFwcGVkOyAkMSBpcyBub3QgbW91bnRlZCIKCWZpCgl0b3A9JChyZWFkbGluayAtZiAtLSAiJDIiKSAmJiByZWFsPSQocmVhZGxpbmsgLWYgLS0gIiQxIikgfHwgZmFpbCAiY2Fubm90IHJlc29sdmUgJDEgb3IgJDIiCgljYXNlICRyZWFsLyBpbgoJIiR0b3AiLyopIHByaW50ZiAnJXNcbicgIiRyZWFsIiA7OwoJKikgZmFpbCAiJDEgbGVhZHMgdG8gJHJlYWwsIG91dHNpZGUgdGhlIG1hcHBlZCB0cmVlICQyOyBpdCBpcyBub3QgbW91bnRlZCIgOzsKCWVzYWMKfQoKIyBlbXB0eSBNRURJVU0gU0laRSBEU1QgbWFrZXMgdGhlIGVtcHR5RGlyIGF0IERTVCAoZW1wdGllczogaG93IG1hbnkpLgplbXB0aWVzPTAKZW1wdHkoKSB7CglbIC1uICIkc2NyYXRjaCIgXSB8fCBmYWlsICJubyBzY3JhdGNoIGRpcmVjdG9yeSB0byBtYWtlIHRoZSBlbXB0eURpciAkMyBpbiIKCWVtcHRpZXM9JCgoZW1wdGllcyArIDEpKQoJZD0kc2NyYXRjaC9lbXB0eWRpci0kZW1wdGllcwoJbWtkaXIgLXAgIiRkIiB8fCBmYWlsICJjYW5ub3QgbWFrZSAkZCBmb3IgJDMiCgltb3VudHBvaW50ICIkMyIgIiRkIgoJaWYgWyAiJDEiID0gbWVtb3J5IF07IHRoZW4KCQlvPW1vZGU9MTc3NwoJCVsgIiQyIiA9IDAgXSB8fCBvPSRvLHNpemU9JHsyfW0KCQltb3VudCAtdCB0bXBmcyAtbyAiJG8iIGpvYnNoaWZ0LWVtcHR5ZGlyICIkcm9vdCQzIiB8fCBmYWlsICJjYW5ub3QgbW91bnQgYSB0bXBmcyBhdCAkMyIKCWVsc2UKCQltb3VudCAtLWJpbmQgIiRkIiAiJHJvb3QkMyIgfHwgZmFpbCAiY2Fubm90IG1vdW50ICRkIGF0ICQzIgoJZmkKfQoKYmluZHMoKSB7Cgl3aGlsZSBJRlM9IiR0YWIiIHJlYWQgLXIga2luZCBybyBzcmMgZHN0IHRyZWUgZmxhZzsgZG8KCQlpZiBbICIka2luZCIgPSBlbXB0eSBdOyB0aGVuCgkJCWVtcHR5ICIkcm8iICIkc3JjIiAiJGRzdCIKCQkJY29udGludWUKCQlmaQoJCVsgIiRraW5kIiA9IGJpbmQgXSB8fCBjb250aW51ZQoJCVsgLWUgIiRzcmMiIF0gfHwgZmFpbCAiJHNyYyAoZm9yICRkc3QpIGRvZXMgbm90IGV4aXN0IgoJCWlmIFsgLW4gIiR0cmVlIiBdOyB0aGVuCgkJCXNyYz0kKGludHJlZSAiJHNyYyIgIiR0cmVlIiAiJGZsYWciKSB8fCBleGl0IDEyNwoJCWZpCgkJbW91bnRwb2ludCAiJGRzdCIgIiRzcmMiCgkJbW91bnQgLS1iaW5kICIkc3JjIiAiJHJvb3QkZHN0IiB8fCBmYWlsICJjYW5ub3QgbW91bnQgJHNyYyBhdCAkZHN0IgoJCWlmIFsgIiRybyIgPSBybyBdOyB0aGVuCgkJCW1vdW50IC1vIHJlbW91bnQsYmluZCxybyAiJHJvb3QkZHN0IiB8fCBmYWlsICJjYW5ub3QgbWFrZSAkZHN0IHJlYWQtb25seSIKCQlmaQoJZG9uZSA8IiRzcGVjIgp9CgojIGhvc3RzIHdyaXRlcyB0aGUgdGFzaydzIC9ldGMvaG9zdHM6IGl0cyBvd24gYW5kIGl0cyBwZWVycycgbmFtZXMgZmlyc3QKIyAodGhlIGZpcnN0IG1hdGNoIHdpbnMpLCB0aGVuIHRoZSBob3N0J3Mgb3duIGVudHJpZXMuCmhvc3RzKCkgewoJd2hpbGUgSUZTPSIkdGFiIiByZWFkIC1yIGtpbmQgYSBuYW1lczsgZG8KCQlbICIka2luZCIgPSBob3N0IF0gJiYgcHJpbnRmICclc1x0JXNcbicgIiRhIiAiJG5hbWVzIgoJZG9uZSA8IiRzcGVjIiA+IiRzY3JhdGNoL2hvc3RzIgoJWyAtcyAiJHNjcmF0Y2gvaG9zdHMiIF0gfHwgcmV0dXJuIDAKCWlmIFsgLWYgL2V0Yy9ob3N0cyBdOyB0aGVuCgkJY2F0IC9ldGMvaG9zdHMgPj4iJHNjcmF0Y2gvaG9zdHMiCglmaQoJbW91bnRwb2ludCAvZXRjL2hvc3RzICIkc2NyYXRjaC9ob3N0cyIKCW1vdW50IC0tYmluZCAiJHNjcmF0Y2gvaG9zdHMiICIkcm9vdC9ldGMvaG9zdHMiIHx8IGZhaWwgImNhbm5vdCBtb3VudCB0aGUgdGFzaydzIC9ldGMvaG9zdHMiCn0KCmlmIFsgIiRtb2RlIiAhPSBub25lIF07IHRoZW4KCW5hbWU9JChnZXQgaG9zdG5hbWUpIHx8IG5hbWU9JycKCWlmIFsgLW4gIiRuYW1lIiBdOyB0aGVuCgkJIyBzZXRob3N0bmFtZSgyKSB0aHJvdWdoIGhvc3RuYW1lKDEpOiAvcHJvYy9zeXMva2VybmVsL2hvc3RuYW1lCgkJIyBiZWxvbmdzIHRvIHRoZSBob3N0J3Mgcm9vdCwgbm90IHRvIGEgdXNlciBuYW1lc3BhY2Uncy4KCQl7IGNvbW1hbmQgLXYgaG9zdG5hbWUgPi9kZXYvbnVsbCAyPiYxICYmIGhvc3RuYW1lICIkbmFtZSI7IH0gfHwKCQkJeyBwcmludGYgJyVzJyAiJG5hbWUiID4vcHJvYy9zeXMva2VybmVsL2hvc3RuYW1lOyB9IDI+L2Rldi9udWxsIHx8CgkJCWZhaWwgImNhbm5vdCBzZXQgdGhlIGhvc3QgbmFtZSAkbmFtZSIKCQlIT1NUTkFNRT0kbmFtZQoJCWV4cG9ydCBIT1NUTkFNRQoJZmkKCWJpbmRzCglob3N0cwpmaQoKIyBpZmFjZSBBRERSIHByaW50cyB0aGUgaW50ZXJmYWNlIHRoYXQgaG9sZHMgQUREUi4KaWZhY2UoKSB7CglhPSQxCgljYXNlICRhIGluCgkqWyEwLTkuOmEtZkEtRl0qKSBhPSQoZ2V0ZW50IGFob3N0cyAiJGEiIDI+L2Rldi9udWxsIHwgeyByZWFkIC1yIHggXyAmJiBwcmludGYgJyVzJyAiJHgiOyB9KSA7OwoJZXNhYwoJWyAtbiAiJGEiIF0gfHwgcmV0dXJuIDEKCWNvbW1hbmQgLXYgaXAgPi9kZXYvbnVsbCAyPiYxIHx8IHJldHVybiAxCglpcCAtbyBhZGRyIHNob3cgMj4vZGV2L251bGwgfCB3aGlsZSByZWFkIC1yIF8gZGV2IGZhbSBjaWRyIF87IGRvCgkJY2FzZSAkZmFtIGluIGluZXQgfCBpbmV0NikgOzsgKikgY29udGludWUgOzsgZXNhYwoJCWlmIFsgIiR7Y2lkciUvKn0iID0gIiRhIiBdOyB0aGVuCgkJCXByaW50ZiAnJXNcbicgIiR7ZGV2JSVAKn0iCgkJCWJyZWFrCgkJZmkKCWRvbmUKfQoKIyBQbGF0Zm9ybSBhZGRpdGlvbnMsIGxpa2UgdGhlIGhvc3RmaWxlIHZhcmlhYmxlczogbmV2ZXIgb3ZlciB3aGF0IGlzIHNldC4KaWYgYWRkcj0kKGdldCBhZGRyKSAmJiBkZXY9JChpZmFjZSAiJGFkZHIiKSAmJiBbIC1uICIkZGV2IiBdOyB0aGVuCglmb3IgdiBpbiBPTVBJX01DQV9idGxfdGNwX2lmX2luY2x1ZGUgT01QSV9NQ0Ffb29iX3RjcF9pZl9pbmNsdWRlIEdMT09fU09DS0VUX0lGTkFNRSBOQ0NMX1NPQ0tFVF9JRk5BTUU7IGRvCgkJZXZhbCAiWyAtbiBcIlwkeyR2K3h9XCIgXSB8fCB7ICR2PVwkZGV2OyBleHBvcnQgJHY7IH0iCglkb25lCmZpCgojIEEgdXNlciBuYW1lc3BhY2UncyByb290IGdvZXMgYmFjayB0byB0aGUgY2FsbGVyJ3Mgb3duIHVpZCBhbmQgZ2lkIGZvcgojIHRoZSBjb21tYW5kIChhIG5lc3RlZCB1c2VyIG5hbWVzcGFjZSBtYXBwaW5nIHRoZW0gb250byBvdXJzKS4gVGhlIG5ldwojIHJvb3QsIGlmIGFueSwgaXMgZW50ZXJlZCBsYXN0OiBhIGNocm9vdGVkIHByb2Nlc3MgbWF5IG5vdCBtYWtlIGEgdXNlcgojIG5hbWVzcGFjZSwgYW5kIHVuc2hhcmUoMSkgZW50ZXJzIGl0IGFmdGVyIG1ha2luZyBvbmUuCnNldCAtLSAtLXdkPSIkKHB3ZCkiIC0tICIkQCIKaWYgWyAtbiAiJHJvb3QiIF07IHRoZW4KCXNldCAtLSAtLXJvb3Q9IiRyb290IiAiJEAiCmZpCmlmIFsgIiRtb2RlIiA9IHVzZXIgXTsgdGhlbgoJaWRzPSR7aW5zaWRlI3VzZXIgfQoJc2V0IC0tIC0tdXNlciAtLW1hcC11c2VyPSIke2lkcyUgKn0iIC0tbWFwLWdyb3VwPSIke2lkcyMqIH0iICIkQCIKZmkKZXhlYyAiJChjb21tYW5kIC12IHVuc2hhcmUpIiAiJEAiCg==\" }}"
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
      name     = "alice-x-y-z-ps-synport-0"
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
        args    = ["-c", "n=0\nwhile :; do\n  l=\n  IFS= read -r l < \"$NOMAD_TASK_DIR/barrier\" 2>/dev/null\n  [ \"$l\" = READY ] && exit 0\n  n=$((n+1))\n  if [ \"$n\" -gt 1200 ]; then\n    echo \"jobshift: barrier timeout: after 2m0s not every task of job alice~x-y-z was placed and registered; still missing: $l. Check 'nomad job status alice~x-y-z' for allocations that could not be placed (not enough CPU, memory or GPUs) or that ended early; the timeout is nomad.barrier_timeout in the site config.\" >&2\n    exit 1\n  fi\n  sleep 0.1\ndone\n"]
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
{{- range $s := nomadService "alice-x-y-z-ps-synport-0" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "0/" .) true }}{{ end }}{{ end }}{{ end -}}
{{- range $i := loop 2 }}{{ if not (scratch.Key (print "0/idx-" $i)) }}{{ $missing = printf "%s %s-%d" $missing "ps" $i }}{{ end }}{{ end -}}
{{- range $s := nomadService "alice-x-y-z-worker-synport-0" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "1/" .) true }}{{ end }}{{ end }}{{ end -}}
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
        args    = ["$${NOMAD_TASK_DIR}/jobshift-taskns.sh", "$${NOMAD_TASK_DIR}/jobshift-taskns.spec", "--", "/bin/sh", "-c", "_t_kind=pai\n_t_gang=0\n_t_bl=-1\n_t_classes=uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuutuuuuuuuuuuuuuuuuuuuuuuutuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuutuupupuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu\n_t_bo_init=10000 _t_bo_max=300000\n_t_tretry_0=0\n_t_tretry_1=0\n_t_role=1\n_s_frac=\n_s_pid=\njs_counter_add() {\n\t_l_n=0\n\tuntil mkdir \"$1.lock\" 2>/dev/null; do\n\t\tsleep 0.05\n\t\t_l_n=$((_l_n + 1))\n\t\t[ \"$_l_n\" -gt 200 ] && rmdir \"$1.lock\" 2>/dev/null\n\tdone\n\t_l_v=$(cat \"$1\" 2>/dev/null || echo 0)\n\techo $((_l_v + 1)) >\"$1\"\n\trmdir \"$1.lock\"\n}\njs_nth_is() {\n\t_q_p=\n\t_q_k=1\n\twhile [ \"$_q_k\" -lt \"$2\" ]; do\n\t\t_q_p=\"$_q_p?\"\n\t\t_q_k=$((_q_k + 1))\n\tdone\n\tcase $1 in\n\t$_q_p\"$3\"*) return 0 ;;\n\tesac\n\treturn 1\n}\njs_restart() {\n\tcase $_t_kind in\n\tpai)\n\t\t[ \"$_t_gang\" = 1 ] && return 1\n\t\t[ \"$2\" = 0 ] && return 1\n\t\tif [ \"$2\" -ge 0 ] && [ \"$2\" -le 255 ]; then\n\t\t\tjs_nth_is \"$_t_classes\" $(($2 + 1)) t && return 0\n\t\t\tjs_nth_is \"$_t_classes\" $(($2 + 1)) p && return 1\n\t\tfi\n\t\teval \"_r_max=\\$_t_tretry_$1\"\n\t\t_r_f=$3/restarts.$1.$4\n\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\tif [ \"$_r_max\" = -1 ] || [ \"$_r_so\" -lt \"$_r_max\" ]; then\n\t\t\tjs_counter_add \"$_r_f\"\n\t\t\treturn 0\n\t\tfi\n\t\treturn 1\n\t\t;;\n\ttf | pytorch)\n\t\t[ \"$2\" -ge 0 ] && [ \"$2\" -le 255 ] || return 1\n\t\teval \"_r_rs=\\$_t_rs_$1\"\n\t\tjs_nth_is \"$_r_rs\" $(($2 + 1)) 1 || return 1\n\t\t_r_f=$3/restarts.job\n\t\tif [ \"$_t_bl\" -ge 0 ]; then\n\t\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\t\t[ $((_r_so + 1)) -ge \"$_t_bl\" ] && return 1\n\t\tfi\n\t\tjs_counter_add \"$_r_f\"\n\t\treturn 0\n\t\t;;\n\tesac\n\treturn 1\n}\njs_backoff() {\n\tif [ \"$1\" -le 0 ] || [ \"$2\" -gt $((2 * _t_bo_max)) ]; then\n\t\t_b_wait=0\n\t\t_b_streak=1\n\t\treturn\n\tfi\n\t_b_wait=$_t_bo_init\n\t_b_n=1\n\twhile [ \"$_b_n\" -lt \"$1\" ] && [ \"$_b_wait\" -lt \"$_t_bo_max\" ]; do\n\t\t_b_wait=$((_b_wait * 2))\n\t\t_b_n=$((_b_n + 1))\n\tdone\n\t[ \"$_b_wait\" -gt \"$_t_bo_max\" ] && _b_wait=$_t_bo_max\n\t_b_streak=$(($1 + 1))\n}\njs_now_ms() {\n\t_n_ns=$(date +%s%N)\n\tcase $_n_ns in\n\t'' | *[!0-9]*) echo $(($(date +%s) * 1000)) ;;\n\t*) echo $((_n_ns / 1000000)) ;;\n\tesac\n}\njs_sleep_ms() {\n\t[ \"$_k_stop\" = 1 ] && return 0\n\tif [ -z \"$_s_frac\" ]; then\n\t\t_s_frac=0\n\t\tsleep 0.001 2>/dev/null && _s_frac=1\n\tfi\n\tif [ \"$_s_frac\" = 1 ]; then\n\t\tsleep \"$(($1 / 1000)).$(printf '%03d' $(($1 % 1000)))\" &\n\telse\n\t\tsleep $((($1 + 999) / 1000)) &\n\tfi\n\t_s_pid=$!\n\t[ \"$_k_stop\" = 1 ] && kill -KILL \"$_s_pid\" 2>/dev/null\n\twait \"$_s_pid\"\n\tkill -KILL \"$_s_pid\" 2>/dev/null\n\twait \"$_s_pid\" 2>/dev/null\n\t_s_pid=\n\treturn 0\n}\n_k_stop=0\n_k_child=\n_k_setsid=\ncommand -v setsid >/dev/null 2>&1 && _k_setsid=setsid\ntrap '_k_stop=1; [ -n \"$_k_child\" ] && { kill -TERM \"-$_k_child\" 2>/dev/null || kill -TERM \"$_k_child\" 2>/dev/null; }; [ -n \"$_s_pid\" ] && kill -KILL \"$_s_pid\" 2>/dev/null' TERM INT\n_k_dir=$NOMAD_TASK_DIR\n[ -n \"$_k_dir\" ] || _k_dir=.\n_k_i=$NOMAD_ALLOC_INDEX\n[ -n \"$_k_i\" ] || _k_i=0\n_k_streak=0\n_k_rc=0\nwhile :; do\n\t_k_t0=$(js_now_ms)\n\t$_k_setsid \"$@\" &\n\t_k_child=$!\n\t[ \"$_k_stop\" = 1 ] && { kill -TERM \"-$_k_child\" 2>/dev/null || kill -TERM \"$_k_child\" 2>/dev/null; }\n\twait \"$_k_child\"\n\t_k_rc=$?\n\twhile kill -0 \"$_k_child\" 2>/dev/null; do\n\t\twait \"$_k_child\"\n\t\t_k_rc=$?\n\tdone\n\tif [ \"$_k_stop\" = 1 ]; then\n\t\twhile kill -0 \"-$_k_child\" 2>/dev/null; do sleep 0.1; done\n\tfi\n\t_k_child=\n\t_k_t1=$(js_now_ms)\n\techo \"$_k_t0 $_k_t1 $_k_rc\" >>\"$_k_dir/jobshift-runs\"\n\t[ \"$_k_stop\" = 1 ] && break\n\tjs_restart \"$_t_role\" \"$_k_rc\" \"$_k_dir\" \"$_k_i\" || break\n\tjs_backoff \"$_k_streak\" $((_k_t1 - _k_t0))\n\t_k_streak=$_b_streak\n\tprintf 'jobshift: task exited with %s; restarting it in place after %s ms (kubelet CrashLoopBackOff)\\n' \"$_k_rc\" \"$_b_wait\" >&2\n\tif [ \"$_b_wait\" -gt 0 ]; then\n\t\tjs_sleep_ms \"$_b_wait\"\n\t\t[ \"$_k_stop\" = 1 ] && break\n\tfi\ndone\nexit \"$_k_rc\"\n", "jobshift-restart", "bash", "-c", "IFS= read -r -d '' _jsh_cmd <\"$1\"; set -- \"$_jsh_cmd\"; unset _jsh_cmd; eval \"$1\" || exit $?", "_", "$${NOMAD_TASK_DIR}/jobshift-command"]
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
{{- $h := "" -}}{{- $all := nomadService "alice-x-y-z-ps-synport-0" -}}{{- range $i := loop 2 -}}{{- range $all -}}{{- if and (eq .JobID (env "NOMAD_JOB_ID")) (.Tags | contains (printf "idx-%d" $i)) -}}{{- if ne $h "" }}{{ $h = printf "%s," $h }}{{ end -}}{{- $h = printf "%s%s:%d" $h .Address .Port -}}{{- end -}}{{- end -}}{{- end }}
JS_HOSTS_PS={{ $h }}
{{- $h := "" -}}{{- $all := nomadService "alice-x-y-z-worker-synport-0" -}}{{- range $i := loop 2 -}}{{- range $all -}}{{- if and (eq .JobID (env "NOMAD_JOB_ID")) (.Tags | contains (printf "idx-%d" $i)) -}}{{- if ne $h "" }}{{ $h = printf "%s," $h }}{{ end -}}{{- $h = printf "%s%s:%d" $h .Address .Port -}}{{- end -}}{{- end -}}{{- end }}
JS_HOSTS_WORKER={{ $h }}
JS_ROLE=worker
JS_INDEX={{ env "NOMAD_ALLOC_INDEX" }}
EOT
        change_mode = "noop"
        once        = true
        env         = true
      }
      template {
        destination = "local/jobshift-command"
        data        = "{{ base64Decode \"ZWNobyAke0hPTUV9ICd7eyAieCIgfX0nICV7eH0=\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0755"
      }
      template {
        destination = "local/jobshift-taskns.sh"
        data        = "{{ base64Decode \"IyBqb2JzaGlmdCB0YXNrIG5hbWVzcGFjZTogd2hhdCBhIHBvZCBvciBjb250YWluZXIgZ2F2ZSBlYWNoIHRhc2sgYmVzaWRlcwojIGl0cyBjb21tYW5kLCByZWJ1aWx0IGZvciBhIHBsYWluIHByb2Nlc3MgKFNsdXJtIHN0ZXAsIE5vbWFkIHJhd19leGVjIG9yCiMgZXhlYyB0YXNrLCBsb2NhbCBwcm9jZXNzKToKIyAgIC0gaXRzIG93biBob3N0IG5hbWUgKGhvc3RuYW1lLCBnZXRob3N0bmFtZSgpLCAkSE9TVE5BTUUpLCBpbiBhIHByaXZhdGUKIyAgICAgVVRTIG5hbWVzcGFjZTsKIyAgIC0gYW4gL2V0Yy9ob3N0cyB3aGVyZSBpdHMgb3duIGFuZCBpdHMgcGVlcnMnIHBsYXRmb3JtIG5hbWVzIHJlc29sdmUgdG8KIyAgICAgdGhlaXIgYWRkcmVzc2VzLCBhbmQgZGF0YSBhbmQgcGxhdGZvcm0gZmlsZXMgYXQgdGhlIGpvYidzIG93biBwYXRocywKIyAgICAgaW4gYSBwcml2YXRlIG1vdW50IG5hbWVzcGFjZSAobm90aGluZyByZWFjaGVzIHRoZSBob3N0J3MgbW91bnQgdGFibGUpOwojICAgLSB0aGUgaW50ZXJmYWNlIGNhcnJ5aW5nIHRoZSB0YXNrJ3MgYWRkcmVzcywgZm9yIHRoZSBjb2xsZWN0aXZlCiMgICAgIGxpYnJhcmllcyAoT3Blbk1QSSwgR2xvbywgTkNDTCksIHVubGVzcyB0aGUgam9iIHNldCB0aGVtIGl0c2VsZi4KIyBUaGVuIGl0IGV4ZWNzIHRoZSBjb21tYW5kIHdpdGggaXRzIGFyZ3VtZW50cyB1bmNoYW5nZWQuCiMKIyBVc2FnZTogc2ggdGFza25zLnNoIFNQRUMgLS0gY29tbWFuZCBbYXJncy4uLl0KIyBTUEVDIGhvbGRzIG9uZSBpdGVtIHBlciBsaW5lLCBmaWVsZHMgc2VwYXJhdGVkIGJ5IG9uZSBUQUIgKGRyaXZlcnMvdGFza25zCiMgd3JpdGVzIGl0IGFuZCByZWZ1c2VzIHZhbHVlcyBob2xkaW5nIGEgVEFCIG9yIGEgbmV3bGluZSk6CiMgICBtb2RlICAgIHJvb3QgfCB1c2VyIHwgbm9uZSB8IGF1dG8KIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICByb290OiB1bnNoYXJlIHRoZSBtb3VudCBhbmQgVVRTIG5hbWVzcGFjZXM7CiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgdXNlcjogdGhlIHNhbWUgaW5zaWRlIGEgdXNlciBuYW1lc3BhY2UKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAodW5wcml2aWxlZ2VkKSwgdGhlIGNvbW1hbmQgdGhlbiBydW5zCiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgdW5kZXIgdGhlIGNhbGxlcidzIG93biB1aWQgYW5kIGdpZCBhZ2FpbjsKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICBub25lOiBvbmx5IHRoZSBpbnRlcmZhY2UgdmFyaWFibGVzOwojICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIGF1dG86IHRoZSBmaXJzdCBvZiByb290IGFuZCB1c2VyIHRoaXMKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICBub2RlIGFsbG93cywgZWxzZSBub25lIHdpdGggYSB3YXJuaW5nCiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgKHJlZnVzZWQgd2hlbiB0aGUgc3BlYyBoYXMgYSBiaW5kKQojICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIChhIHRhcmdldCB0aGF0IGtub3dzIG5vdGhpbmcgb2YgaXRzCiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgbm9kZXMgd2hlbiBpdCByZW5kZXJzOiBOb21hZCkKIyAgIHNjcmF0Y2ggRElSICAgICAgICAgICAgICAgICAgIHRoaXMgc3RhcnQncyBwcml2YXRlIGRpcmVjdG9yeQojICAgaG9zdG5hbWUgTkFNRQojICAgaG9zdCAgICBBRERSIE5BTUUuLi4gICAgICAgICAgYW4gL2V0Yy9ob3N0cyBsaW5lIChuYW1lcyBzcGFjZS1zZXBhcmF0ZWQpCiMgICBiaW5kICAgIHJvfHJ3IFNSQyBEU1QgW1RSRUUgW25vbGlua11dCiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICBhIGRpcmVjdG9yeSBvciBmaWxlIGF0IHRoZSBqb2IncyBwYXRoOwojICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgd2l0aCBUUkVFLCBTUkMgbXVzdCBzdGF5IGluc2lkZSBUUkVFIG9uY2UKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIGxpbmtzIGFyZSByZXNvbHZlZCAodGhlIHJlc29sdmVkIHBhdGggaXMKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIG1vdW50ZWQpLCBhbmQgd2l0aCBub2xpbmsgVFJFRSBtdXN0IG5vdCBiZQojICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgYSBsaW5rIGl0c2VsZiAoYSB1c2VyJ3Mgb3duIGRpcmVjdG9yeSkKIyAgIGVtcHR5ICAgZGlza3xtZW1vcnkgU0laRSBEU1QgIGFuIGVtcHR5RGlyIGF0IERTVDogYSBmcmVzaCBkaXJlY3Rvcnkgb2YKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIHRoZSBzY3JhdGNoIGRpcmVjdG9yeSAoZGlzayksIG9yIGEgdG1wZnMKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIChtZW1vcnkpIG9mIFNJWkUgTWlCICgwOiBubyBzaXplIGdpdmVuKQojICAgYWRkciAgICBBRERSICAgICAgICAgICAgICAgICAgdGhlIHRhc2sncyBvd24gYWRkcmVzcyAoYW4gSVAsIG9yIGEgbmFtZQojICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIHJlc29sdmVkIHdpdGggZ2V0ZW50KQojIEV4aXQgY29kZSAxMjcgd2hlbiB0aGUgdmlldyBjYW5ub3QgYmUgYnVpbHQgKHRoZSBjb21tYW5kIG5ldmVyIHJhbikuCgpzZXQgLXUKZmFpbCgpIHsKCXByaW50ZiAnam9ic2hpZnQgdGFzayBuYW1lc3BhY2U6ICVzXG4nICIkKiIgPiYyCglleGl0IDEyNwp9ClsgJCMgLWdlIDMgXSAmJiBbICIkMiIgPSAtLSBdIHx8IGZhaWwgInVzYWdlOiB0YXNrbnMuc2ggU1BFQyAtLSBjb21tYW5kIFthcmdzLi4uXSIKc3BlYz0kMQpzaGlmdCAyCnRhYj0kKHByaW50ZiAnXHQnKQoKIyBnZXQgS0VZIHByaW50cyB0aGUgZmlyc3QgdmFsdWUgb2YgS0VZICh0aGUgcmVzdCBvZiBpdHMgbGluZSkuCmdldCgpIHsKCXdoaWxlIElGUz0gcmVhZCAtciBsaW5lOyBkbwoJCWNhc2UgJGxpbmUgaW4gIiQxJHRhYiIqKQoJCQlwcmludGYgJyVzXG4nICIke2xpbmUjKiIkdGFiIn0iCgkJCXJldHVybiAwCgkJCTs7CgkJZXNhYwoJZG9uZSA8IiRzcGVjIgoJcmV0dXJuIDEKfQoKbW9kZT0kKGdldCBtb2RlKSB8fCBmYWlsICJubyBtb2RlIGluICRzcGVjIgppbnNpZGU9JHtKT0JTSElGVF9UQVNLTlNfSU5TSURFOi19CmlmIFsgIiRtb2RlIiA9IGF1dG8gXSAmJiBbIC16ICIkaW5zaWRlIiBdOyB0aGVuCgltb2RlPW5vbmUKCWlmIFsgIiQoaWQgLXUpIiA9IDAgXSAmJiB1bnNoYXJlIC0tbW91bnQgLS11dHMgLS1wcm9wYWdhdGlvbiBwcml2YXRlIHRydWUgMj4vZGV2L251bGw7IHRoZW4KCQltb2RlPXJvb3QKCWVsaWYgdW5zaGFyZSAtLXVzZXIgLS1tYXAtcm9vdC11c2VyIC0tbW91bnQgLS11dHMgdHJ1ZSAyPi9kZXYvbnVsbDsgdGhlbgoJCW1vZGU9dXNlcgoJZWxpZiBbIC1uICIkKGdldCBob3N0bmFtZSkiIF07IHRoZW4KCQlwcmludGYgJyVzXG4nICJqb2JzaGlmdDogd2FybmluZzogdGhpcyB0YXNrIGtlZXBzIHRoZSBub2RlJ3MgaG9zdCBuYW1lLCBub3QgJChnZXQgaG9zdG5hbWUpIChubyBwcml2YXRlIFVUUyBuYW1lc3BhY2U6IG5vdCByb290LCBhbmQgdW5wcml2aWxlZ2VkIHVzZXIgbmFtZXNwYWNlcyBhcmUgbm90IGFsbG93ZWQpOyBPcGVuTVBJJ3Mgc2hhcmVkLW1lbW9yeSB0cmFuc3BvcnQsIE5DQ0wgYW5kIEhvcm92b2QgdGFrZSB0YXNrcyB3aXRoIG9uZSBob3N0IG5hbWUgZm9yIG9uZSBub2RlOyBhbGxvdyB0aGVtIG9uIHRoZSBub2RlcyAoc3lzY3RsIGtlcm5lbC51bnByaXZpbGVnZWRfdXNlcm5zX2Nsb25lPTEsIHVzZXIubWF4X3VzZXJfbmFtZXNwYWNlcyA+IDApIG9yIHJ1biB0aGUgdGFzayBpbiBhIGNvbnRhaW5lciIgPiYyCglmaQoJaWYgWyAiJG1vZGUiID0gbm9uZSBdICYmIHsgYmluZD0kKGdldCBiaW5kKSB8fCBiaW5kPSQoZ2V0IGVtcHR5KTsgfTsgdGhlbgoJCSMgZGF0YSBvciBhIGZpbGUgdGhlIGpvYiBuZWVkcyBhdCBpdHMgcGF0aDogbmV2ZXIgc3RhcnQgd2l0aG91dCBpdAoJCWJpbmQ9JChwcmludGYgJyVzXG4nICIkYmluZCIgfCB7IElGUz0iJHRhYiIgcmVhZCAtciBfIF8gZCBfICYmIHByaW50ZiAnJXMnICIkZCI7IH0pCgkJZmFpbCAidGhlIHRhc2sgbmVlZHMgJGJpbmQgYXQgdGhlIHBhdGggdGhlIGpvYiBuYW1lcywgd2hpY2ggYSBwbGFpbiBwcm9jZXNzIGdldHMgb25seSB0aHJvdWdoIGEgcHJpdmF0ZSBtb3VudCBuYW1lc3BhY2UsIGFuZCB0aGlzIG5vZGUgYWxsb3dzIG5vbmUgKG5vdCByb290LCBhbmQgdW5wcml2aWxlZ2VkIHVzZXIgbmFtZXNwYWNlcyBhcmUgbm90IGFsbG93ZWQpOyBhbGxvdyB0aGVtIG9uIHRoZSBub2RlcyAoc3lzY3RsIGtlcm5lbC51bnByaXZpbGVnZWRfdXNlcm5zX2Nsb25lPTEsIHVzZXIubWF4X3VzZXJfbmFtZXNwYWNlcyA+IDApLCBydW4gdGhlIGpvYidzIHRhc2tzIGFzIHJvb3QsIG9yIHVzZSBhIGNvbnRhaW5lciBkcml2ZXIgKG5vbWFkLmRyaXZlciA9IFwiZG9ja2VyXCIpIgoJZmkKCVsgIiRtb2RlIiA9IG5vbmUgXSB8fCBKT0JTSElGVF9UQVNLTlNfTU9ERT0kbW9kZQpmaQptb2RlPSR7Sk9CU0hJRlRfVEFTS05TX01PREU6LSRtb2RlfQppZiBbICIkbW9kZSIgIT0gbm9uZSBdICYmIFsgLXogIiRpbnNpZGUiIF07IHRoZW4KCXVuc2hhcmU9JChjb21tYW5kIC12IHVuc2hhcmUpIHx8IGZhaWwgInVuc2hhcmUgKHV0aWwtbGludXgpIG5vdCBmb3VuZCBvbiBQQVRIIgoJY2FzZSAkbW9kZSBpbgoJcm9vdCkKCQlKT0JTSElGVF9UQVNLTlNfTU9ERT1yb290IEpPQlNISUZUX1RBU0tOU19JTlNJREU9cm9vdCBleGVjICIkdW5zaGFyZSIgLS1tb3VudCAtLXV0cyAtLXByb3BhZ2F0aW9uIHByaXZhdGUgL2Jpbi9zaCAiJDAiICIkc3BlYyIgLS0gIiRAIgoJCTs7Cgl1c2VyKQoJCUpPQlNISUZUX1RBU0tOU19NT0RFPXVzZXIgSk9CU0hJRlRfVEFTS05TX0lOU0lERT0idXNlciAkKGlkIC11KSAkKGlkIC1nKSIgZXhlYyAiJHVuc2hhcmUiIC0tdXNlciAtLW1hcC1yb290LXVzZXIgLS1tb3VudCAtLXV0cyAtLXByb3BhZ2F0aW9uIHByaXZhdGUgL2Jpbi9zaCAiJDAiICIkc3BlYyIgLS0gIiRAIgoJCTs7CgkqKSBmYWlsICJ1bmtub3duIG1vZGUgJG1vZGUiIDs7Cgllc2FjCmZpCnVuc2V0IEpPQlNISUZUX1RBU0tOU19JTlNJREUgSk9CU0hJRlRfVEFTS05TX01PREUKCnNjcmF0Y2g9JChnZXQgc2NyYXRjaCkgfHwgc2NyYXRjaD0nJwppZiBbIC1uICIkc2NyYXRjaCIgXTsgdGhlbgoJbWtkaXIgLXAgIiRzY3JhdGNoIiB8fCBmYWlsICJjYW5ub3QgbWFrZSAkc2NyYXRjaCIKZmkKcm9vdD0nJyAgICAjIHRoZSBuZXcgcm9vdCB3aGVuIC8gaGFkIHRvIGJlIHVuZGVybGFpZCAodGhlbiBjaHJvb3QpCnVuZGVyPTAKCiMgdW5kZXJsYXkgRElSIG1ha2VzIERJUiB3cml0YWJsZSBpbiB0aGlzIG5hbWVzcGFjZSBvbmx5OiBhIHRtcGZzIGhvbGRpbmcKIyB0aGUgc2FtZSBlbnRyaWVzIChkaXJlY3RvcmllcyBhbmQgZmlsZXMgYm91bmQsIGxpbmtzIGNvcGllZCkgaXMgbW91bnRlZAojIG92ZXIgaXQsIHNvIGEgbWlzc2luZyBtb3VudCBwb2ludCBjYW4gYmUgbWFkZSB3aXRob3V0IHRvdWNoaW5nIHRoZSBob3N0Lgp1bmRlcmxheSgpIHsKCVsgLW4gIiRzY3JhdGNoIiBdIHx8IGZhaWwgIm5vIHNjcmF0Y2ggZGlyZWN0b3J5IHRvIGJ1aWxkICQxIGluIgoJdW5kZXI9JCgodW5kZXIgKyAxKSkKCXU9JHNjcmF0Y2gvdW5kZXJsYXktJHVuZGVyCglta2RpciAtcCAiJHUiICYmIG1vdW50IC10IHRtcGZzIC1vIG1vZGU9NzU1IGpvYnNoaWZ0LXVuZGVybGF5ICIkdSIgfHwgZmFpbCAiY2Fubm90IG1vdW50IGEgdG1wZnMgb24gJHUiCglmb3IgZSBpbiAiJHJvb3QkMSIvKiAiJHJvb3QkMSIvLlshLl0qICIkcm9vdCQxIi8uLj8qOyBkbwoJCVsgLWUgIiRlIiBdIHx8IFsgLUwgIiRlIiBdIHx8IGNvbnRpbnVlCgkJYj0ke2UjIyovfQoJCWlmIFsgLUwgIiRlIiBdOyB0aGVuCgkJCWxuIC1zICIkKHJlYWRsaW5rICIkZSIpIiAiJHUvJGIiCgkJZWxpZiBbIC1kICIkZSIgXTsgdGhlbgoJCQlta2RpciAiJHUvJGIiICYmIG1vdW50IC0tcmJpbmQgIiRlIiAiJHUvJGIiCgkJZWxzZQoJCQk6ID4iJHUvJGIiICYmIG1vdW50IC0tYmluZCAiJGUiICIkdS8kYiIKCQlmaSB8fCBmYWlsICJjYW5ub3Qgc2hvdyAkZSBpbiB0aGUgdGFzaydzIHZpZXcgb2YgJDEiCglkb25lCglpZiBbICIkMSIgPSAvIF07IHRoZW4KCQlyb290PSR1CgllbHNlCgkJbW91bnQgLS1yYmluZCAiJHUiICIkcm9vdCQxIiB8fCBmYWlsICJjYW5ub3QgbW91bnQgdGhlIHRhc2sncyB2aWV3IG9mICQxIgoJZmkKfQoKIyBtb3VudHBvaW50IERTVCBTUkMgbWFrZXMgRFNUIChhIGRpcmVjdG9yeSB3aGVuIFNSQyBpcyBvbmUsIGVsc2UgYSBmaWxlKS4KbW91bnRwb2ludCgpIHsKCVsgLWUgIiRyb290JDEiIF0gJiYgcmV0dXJuIDAKCWE9JDEKCXdoaWxlIFsgISAtZSAiJHJvb3QkYSIgXSAmJiBbICEgLUwgIiRyb290JGEiIF07IGRvCgkJYT0kKGRpcm5hbWUgIiRhIikKCWRvbmUKCVsgLWQgIiRyb290JGEiIF0gfHwgZmFpbCAiJGEgaXMgbm90IGEgZGlyZWN0b3J5LCBzbyAkMSBjYW5ub3QgYmUgbWFkZSIKCXVuZGVybGF5ICIkYSIKCWlmIFsgLWQgIiQyIiBdOyB0aGVuCgkJbWtkaXIgLXAgIiRyb290JDEiCgllbHNlCgkJbWtkaXIgLXAgIiRyb290JChkaXJuYW1lICIkMSIpIiAmJiA6ID4iJHJvb3QkMSIKCWZpIHx8IGZhaWwgImNhbm5vdCBtYWtlICQxIGluIHRoZSB0YXNrJ3MgdmlldyIKfQoKIyBpbnRyZWUgU1JDIFRSRUUgW25vbGlua10gcHJpbnRzIFNSQyB3aXRoIGl0cyBsaW5rcyByZXNvbHZlZCwgZmFpbGluZwojIHdoZW4gdGhhdCBsZWF2ZXMgVFJFRSAocmVzb2x2ZWQgdG9vKSwgb3IsIHdpdGggbm9saW5rLCB3aGVuIFRSRUUgaXMgYQojIGxpbms6IG5vdGhpbmcgb3V0c2lkZSBhIG1hcHBlZCB0cmVlIGJlY29tZXMgdmlzaWJsZSB0byB0aGUgdGFzay4KaW50cmVlKCkgewoJaWYgWyAiJHszOi19IiA9IG5vbGluayBdICYmIFsgLUwgIiQyIiBdOyB0aGVuCgkJZmFpbCAiJDIgaXMgYSBzeW1ib2xpYyBsaW5rLCB3aGljaCB3b3VsZCBzaG93IHRoZSB0YXNrIGFub3RoZXIgdHJlZSB0aGFuIHRoZSBvbmUgbWFwcGVkOyAkMSBpcyBub3QgbW91bnRlZCIKCWZpCgl0b3A9JChyZWFkbGluayAtZiAtLSAiJDIiKSAmJiByZWFsPSQocmVhZGxpbmsgLWYgLS0gIiQxIikgfHwgZmFpbCAiY2Fubm90IHJlc29sdmUgJDEgb3IgJDIiCgljYXNlICRyZWFsLyBpbgoJIiR0b3AiLyopIHByaW50ZiAnJXNcbicgIiRyZWFsIiA7OwoJKikgZmFpbCAiJDEgbGVhZHMgdG8gJHJlYWwsIG91dHNpZGUgdGhlIG1hcHBlZCB0cmVlICQyOyBpdCBpcyBub3QgbW91bnRlZCIgOzsKCWVzYWMKfQoKIyBlbXB0eSBNRURJVU0gU0laRSBEU1QgbWFrZXMgdGhlIGVtcHR5RGlyIGF0IERTVCAoZW1wdGllczogaG93IG1hbnkpLgplbXB0aWVzPTAKZW1wdHkoKSB7CglbIC1uICIkc2NyYXRjaCIgXSB8fCBmYWlsICJubyBzY3JhdGNoIGRpcmVjdG9yeSB0byBtYWtlIHRoZSBlbXB0eURpciAkMyBpbiIKCWVtcHRpZXM9JCgoZW1wdGllcyArIDEpKQoJZD0kc2NyYXRjaC9lbXB0eWRpci0kZW1wdGllcwoJbWtkaXIgLXAgIiRkIiB8fCBmYWlsICJjYW5ub3QgbWFrZSAkZCBmb3IgJDMiCgltb3VudHBvaW50ICIkMyIgIiRkIgoJaWYgWyAiJDEiID0gbWVtb3J5IF07IHRoZW4KCQlvPW1vZGU9MTc3NwoJCVsgIiQyIiA9IDAgXSB8fCBvPSRvLHNpemU9JHsyfW0KCQltb3VudCAtdCB0bXBmcyAtbyAiJG8iIGpvYnNoaWZ0LWVtcHR5ZGlyICIkcm9vdCQzIiB8fCBmYWlsICJjYW5ub3QgbW91bnQgYSB0bXBmcyBhdCAkMyIKCWVsc2UKCQltb3VudCAtLWJpbmQgIiRkIiAiJHJvb3QkMyIgfHwgZmFpbCAiY2Fubm90IG1vdW50ICRkIGF0ICQzIgoJZmkKfQoKYmluZHMoKSB7Cgl3aGlsZSBJRlM9IiR0YWIiIHJlYWQgLXIga2luZCBybyBzcmMgZHN0IHRyZWUgZmxhZzsgZG8KCQlpZiBbICIka2luZCIgPSBlbXB0eSBdOyB0aGVuCgkJCWVtcHR5ICIkcm8iICIkc3JjIiAiJGRzdCIKCQkJY29udGludWUKCQlmaQoJCVsgIiRraW5kIiA9IGJpbmQgXSB8fCBjb250aW51ZQoJCVsgLWUgIiRzcmMiIF0gfHwgZmFpbCAiJHNyYyAoZm9yICRkc3QpIGRvZXMgbm90IGV4aXN0IgoJCWlmIFsgLW4gIiR0cmVlIiBdOyB0aGVuCgkJCXNyYz0kKGludHJlZSAiJHNyYyIgIiR0cmVlIiAiJGZsYWciKSB8fCBleGl0IDEyNwoJCWZpCgkJbW91bnRwb2ludCAiJGRzdCIgIiRzcmMiCgkJbW91bnQgLS1iaW5kICIkc3JjIiAiJHJvb3QkZHN0IiB8fCBmYWlsICJjYW5ub3QgbW91bnQgJHNyYyBhdCAkZHN0IgoJCWlmIFsgIiRybyIgPSBybyBdOyB0aGVuCgkJCW1vdW50IC1vIHJlbW91bnQsYmluZCxybyAiJHJvb3QkZHN0IiB8fCBmYWlsICJjYW5ub3QgbWFrZSAkZHN0IHJlYWQtb25seSIKCQlmaQoJZG9uZSA8IiRzcGVjIgp9CgojIGhvc3RzIHdyaXRlcyB0aGUgdGFzaydzIC9ldGMvaG9zdHM6IGl0cyBvd24gYW5kIGl0cyBwZWVycycgbmFtZXMgZmlyc3QKIyAodGhlIGZpcnN0IG1hdGNoIHdpbnMpLCB0aGVuIHRoZSBob3N0J3Mgb3duIGVudHJpZXMuCmhvc3RzKCkgewoJd2hpbGUgSUZTPSIkdGFiIiByZWFkIC1yIGtpbmQgYSBuYW1lczsgZG8KCQlbICIka2luZCIgPSBob3N0IF0gJiYgcHJpbnRmICclc1x0JXNcbicgIiRhIiAiJG5hbWVzIgoJZG9uZSA8IiRzcGVjIiA+IiRzY3JhdGNoL2hvc3RzIgoJWyAtcyAiJHNjcmF0Y2gvaG9zdHMiIF0gfHwgcmV0dXJuIDAKCWlmIFsgLWYgL2V0Yy9ob3N0cyBdOyB0aGVuCgkJY2F0IC9ldGMvaG9zdHMgPj4iJHNjcmF0Y2gvaG9zdHMiCglmaQoJbW91bnRwb2ludCAvZXRjL2hvc3RzICIkc2NyYXRjaC9ob3N0cyIKCW1vdW50IC0tYmluZCAiJHNjcmF0Y2gvaG9zdHMiICIkcm9vdC9ldGMvaG9zdHMiIHx8IGZhaWwgImNhbm5vdCBtb3VudCB0aGUgdGFzaydzIC9ldGMvaG9zdHMiCn0KCmlmIFsgIiRtb2RlIiAhPSBub25lIF07IHRoZW4KCW5hbWU9JChnZXQgaG9zdG5hbWUpIHx8IG5hbWU9JycKCWlmIFsgLW4gIiRuYW1lIiBdOyB0aGVuCgkJIyBzZXRob3N0bmFtZSgyKSB0aHJvdWdoIGhvc3RuYW1lKDEpOiAvcHJvYy9zeXMva2VybmVsL2hvc3RuYW1lCgkJIyBiZWxvbmdzIHRvIHRoZSBob3N0J3Mgcm9vdCwgbm90IHRvIGEgdXNlciBuYW1lc3BhY2Uncy4KCQl7IGNvbW1hbmQgLXYgaG9zdG5hbWUgPi9kZXYvbnVsbCAyPiYxICYmIGhvc3RuYW1lICIkbmFtZSI7IH0gfHwKCQkJeyBwcmludGYgJyVzJyAiJG5hbWUiID4vcHJvYy9zeXMva2VybmVsL2hvc3RuYW1lOyB9IDI+L2Rldi9udWxsIHx8CgkJCWZhaWwgImNhbm5vdCBzZXQgdGhlIGhvc3QgbmFtZSAkbmFtZSIKCQlIT1NUTkFNRT0kbmFtZQoJCWV4cG9ydCBIT1NUTkFNRQoJZmkKCWJpbmRzCglob3N0cwpmaQoKIyBpZmFjZSBBRERSIHByaW50cyB0aGUgaW50ZXJmYWNlIHRoYXQgaG9sZHMgQUREUi4KaWZhY2UoKSB7CglhPSQxCgljYXNlICRhIGluCgkqWyEwLTkuOmEtZkEtRl0qKSBhPSQoZ2V0ZW50IGFob3N0cyAiJGEiIDI+L2Rldi9udWxsIHwgeyByZWFkIC1yIHggXyAmJiBwcmludGYgJyVzJyAiJHgiOyB9KSA7OwoJZXNhYwoJWyAtbiAiJGEiIF0gfHwgcmV0dXJuIDEKCWNvbW1hbmQgLXYgaXAgPi9kZXYvbnVsbCAyPiYxIHx8IHJldHVybiAxCglpcCAtbyBhZGRyIHNob3cgMj4vZGV2L251bGwgfCB3aGlsZSByZWFkIC1yIF8gZGV2IGZhbSBjaWRyIF87IGRvCgkJY2FzZSAkZmFtIGluIGluZXQgfCBpbmV0NikgOzsgKikgY29udGludWUgOzsgZXNhYwoJCWlmIFsgIiR7Y2lkciUvKn0iID0gIiRhIiBdOyB0aGVuCgkJCXByaW50ZiAnJXNcbicgIiR7ZGV2JSVAKn0iCgkJCWJyZWFrCgkJZmkKCWRvbmUKfQoKIyBQbGF0Zm9ybSBhZGRpdGlvbnMsIGxpa2UgdGhlIGhvc3RmaWxlIHZhcmlhYmxlczogbmV2ZXIgb3ZlciB3aGF0IGlzIHNldC4KaWYgYWRkcj0kKGdldCBhZGRyKSAmJiBkZXY9JChpZmFjZSAiJGFkZHIiKSAmJiBbIC1uICIkZGV2IiBdOyB0aGVuCglmb3IgdiBpbiBPTVBJX01DQV9idGxfdGNwX2lmX2luY2x1ZGUgT01QSV9NQ0Ffb29iX3RjcF9pZl9pbmNsdWRlIEdMT09fU09DS0VUX0lGTkFNRSBOQ0NMX1NPQ0tFVF9JRk5BTUU7IGRvCgkJZXZhbCAiWyAtbiBcIlwkeyR2K3h9XCIgXSB8fCB7ICR2PVwkZGV2OyBleHBvcnQgJHY7IH0iCglkb25lCmZpCgojIEEgdXNlciBuYW1lc3BhY2UncyByb290IGdvZXMgYmFjayB0byB0aGUgY2FsbGVyJ3Mgb3duIHVpZCBhbmQgZ2lkIGZvcgojIHRoZSBjb21tYW5kIChhIG5lc3RlZCB1c2VyIG5hbWVzcGFjZSBtYXBwaW5nIHRoZW0gb250byBvdXJzKS4gVGhlIG5ldwojIHJvb3QsIGlmIGFueSwgaXMgZW50ZXJlZCBsYXN0OiBhIGNocm9vdGVkIHByb2Nlc3MgbWF5IG5vdCBtYWtlIGEgdXNlcgojIG5hbWVzcGFjZSwgYW5kIHVuc2hhcmUoMSkgZW50ZXJzIGl0IGFmdGVyIG1ha2luZyBvbmUuCnNldCAtLSAtLXdkPSIkKHB3ZCkiIC0tICIkQCIKaWYgWyAtbiAiJHJvb3QiIF07IHRoZW4KCXNldCAtLSAtLXJvb3Q9IiRyb290IiAiJEAiCmZpCmlmIFsgIiRtb2RlIiA9IHVzZXIgXTsgdGhlbgoJaWRzPSR7aW5zaWRlI3VzZXIgfQoJc2V0IC0tIC0tdXNlciAtLW1hcC11c2VyPSIke2lkcyUgKn0iIC0tbWFwLWdyb3VwPSIke2lkcyMqIH0iICIkQCIKZmkKZXhlYyAiJChjb21tYW5kIC12IHVuc2hhcmUpIiAiJEAiCg==\" }}"
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
      name     = "alice-x-y-z-worker-synport-0"
      tags     = ["idx-$${NOMAD_ALLOC_INDEX}"]
      port     = "synport_0"
      provider = "nomad"
    }
  }
  meta {
    jobshift_attempt = "0"
    jobshift_format  = "pai-v1"
    jobshift_name    = "x y/z"
    jobshift_policy  = "{\"name\":\"x y/z\",\"kind\":\"pai\",\"format\":\"pai-v1\",\"completion\":{\"kind\":\"pai\",\"pos\":{}},\"retry\":{\"jobRetryCount\":0,\"gangAllocation\":false,\"pos\":{}},\"roles\":[{\"name\":\"ps\",\"instances\":2,\"minFailed\":1,\"minSucceeded\":-1},{\"name\":\"worker\",\"instances\":2,\"minFailed\":1,\"minSucceeded\":null}]}"
    jobshift_shape   = "unwatched: for nomad job run; jobshift convert -watched writes what jobshift run submits"
    jobshift_source  = "job.json"
    jobshift_user    = "alice"
    jobshift_version = "0.1.0-dev"
  }
}
