# jobshift: unwatched: for nomad job run; jobshift convert -watched writes what jobshift run submits
#
# shape: unwatched (nothing outside the job: nomad job run, run -detach); rendezvous barrier
# group train (raw_exec): env template over registrations; judged by none in the job (a controller or watch -enforce)
#   task jobshift-barrier (prestart)
#   task main > task namespace > restart loop > command
#   task ps > stop group > command
# why: rendezvous barrier: nobody watches the job to write a snapshot (convert -watched, or run, gives the snapshot)
# why (train): env: template over the group services (no snapshot)
# why (train): task namespace: the command runs as a plain process, which gets its platform host name and files from the wrapper

job "alice~uai" {
  type        = "batch"
  datacenters = ["dc1"]
  group "train" {
    count = 3
    task "jobshift-barrier" {
      driver = "raw_exec"
      lifecycle {
        hook = "prestart"
      }
      config {
        args    = ["-c", "n=0\nwhile :; do\n  l=\n  IFS= read -r l < \"$NOMAD_TASK_DIR/barrier\" 2>/dev/null\n  [ \"$l\" = READY ] && exit 0\n  n=$((n+1))\n  if [ \"$n\" -gt 1200 ]; then\n    echo \"jobshift: barrier timeout: after 2m0s not every task of job alice~uai was placed and registered; still missing: $l. Check 'nomad job status alice~uai' for allocations that could not be placed (not enough CPU, memory or GPUs) or that ended early; the timeout is nomad.barrier_timeout in the site config.\" >&2\n    exit 1\n  fi\n  sleep 0.1\ndone\n"]
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
{{- range $s := nomadService "alice-uai-train-uai-0-fc4261e9" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "0/" .) true }}{{ end }}{{ end }}{{ end -}}
{{- range $i := loop 3 }}{{ if not (scratch.Key (print "0/idx-" $i)) }}{{ $missing = printf "%s %s-%d" $missing "train" $i }}{{ end }}{{ end -}}
{{- range $s := nomadService "alice-uai-train-uai-1-038a49aa" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "1/" .) true }}{{ end }}{{ end }}{{ end -}}
{{- range $i := loop 3 }}{{ if not (scratch.Key (print "1/idx-" $i)) }}{{ $missing = printf "%s %s-%d" $missing "train" $i }}{{ end }}{{ end -}}
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
        args    = ["$${NOMAD_TASK_DIR}/jobshift-taskns.sh", "$${NOMAD_TASK_DIR}/jobshift-taskns.spec", "--", "/bin/sh", "-c", "_t_kind=pai\n_t_gang=0\n_t_bl=-1\n_t_classes=uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuttpuuppuuuupuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu\n_t_bo_init=10000 _t_bo_max=300000\n_t_tretry_0=0\n_t_role=0\n_s_frac=\n_s_pid=\njs_counter_add() {\n\t_l_n=0\n\tuntil mkdir \"$1.lock\" 2>/dev/null; do\n\t\tsleep 0.05\n\t\t_l_n=$((_l_n + 1))\n\t\t[ \"$_l_n\" -gt 200 ] && rmdir \"$1.lock\" 2>/dev/null\n\tdone\n\t_l_v=$(cat \"$1\" 2>/dev/null || echo 0)\n\techo $((_l_v + 1)) >\"$1\"\n\trmdir \"$1.lock\"\n}\njs_nth_is() {\n\t_q_p=\n\t_q_k=1\n\twhile [ \"$_q_k\" -lt \"$2\" ]; do\n\t\t_q_p=\"$_q_p?\"\n\t\t_q_k=$((_q_k + 1))\n\tdone\n\tcase $1 in\n\t$_q_p\"$3\"*) return 0 ;;\n\tesac\n\treturn 1\n}\njs_restart() {\n\tcase $_t_kind in\n\tpai)\n\t\t[ \"$_t_gang\" = 1 ] && return 1\n\t\t[ \"$2\" = 0 ] && return 1\n\t\tif [ \"$2\" -ge 0 ] && [ \"$2\" -le 255 ]; then\n\t\t\tjs_nth_is \"$_t_classes\" $(($2 + 1)) t && return 0\n\t\t\tjs_nth_is \"$_t_classes\" $(($2 + 1)) p && return 1\n\t\tfi\n\t\teval \"_r_max=\\$_t_tretry_$1\"\n\t\t_r_f=$3/restarts.$1.$4\n\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\tif [ \"$_r_max\" = -1 ] || [ \"$_r_so\" -lt \"$_r_max\" ]; then\n\t\t\tjs_counter_add \"$_r_f\"\n\t\t\treturn 0\n\t\tfi\n\t\treturn 1\n\t\t;;\n\ttf | pytorch)\n\t\t[ \"$2\" -ge 0 ] && [ \"$2\" -le 255 ] || return 1\n\t\teval \"_r_rs=\\$_t_rs_$1\"\n\t\tjs_nth_is \"$_r_rs\" $(($2 + 1)) 1 || return 1\n\t\t_r_f=$3/restarts.job\n\t\tif [ \"$_t_bl\" -ge 0 ]; then\n\t\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\t\t[ $((_r_so + 1)) -ge \"$_t_bl\" ] && return 1\n\t\tfi\n\t\tjs_counter_add \"$_r_f\"\n\t\treturn 0\n\t\t;;\n\tesac\n\treturn 1\n}\njs_backoff() {\n\tif [ \"$1\" -le 0 ] || [ \"$2\" -gt $((2 * _t_bo_max)) ]; then\n\t\t_b_wait=0\n\t\t_b_streak=1\n\t\treturn\n\tfi\n\t_b_wait=$_t_bo_init\n\t_b_n=1\n\twhile [ \"$_b_n\" -lt \"$1\" ] && [ \"$_b_wait\" -lt \"$_t_bo_max\" ]; do\n\t\t_b_wait=$((_b_wait * 2))\n\t\t_b_n=$((_b_n + 1))\n\tdone\n\t[ \"$_b_wait\" -gt \"$_t_bo_max\" ] && _b_wait=$_t_bo_max\n\t_b_streak=$(($1 + 1))\n}\njs_now_ms() {\n\t_n_ns=$(date +%s%N)\n\tcase $_n_ns in\n\t'' | *[!0-9]*) echo $(($(date +%s) * 1000)) ;;\n\t*) echo $((_n_ns / 1000000)) ;;\n\tesac\n}\njs_sleep_ms() {\n\t[ \"$_k_stop\" = 1 ] && return 0\n\tif [ -z \"$_s_frac\" ]; then\n\t\t_s_frac=0\n\t\tsleep 0.001 2>/dev/null && _s_frac=1\n\tfi\n\tif [ \"$_s_frac\" = 1 ]; then\n\t\tsleep \"$(($1 / 1000)).$(printf '%03d' $(($1 % 1000)))\" &\n\telse\n\t\tsleep $((($1 + 999) / 1000)) &\n\tfi\n\t_s_pid=$!\n\t[ \"$_k_stop\" = 1 ] && kill -KILL \"$_s_pid\" 2>/dev/null\n\twait \"$_s_pid\"\n\tkill -KILL \"$_s_pid\" 2>/dev/null\n\twait \"$_s_pid\" 2>/dev/null\n\t_s_pid=\n\treturn 0\n}\n_k_stop=0\n_k_child=\n_k_setsid=\ncommand -v setsid >/dev/null 2>&1 && _k_setsid=setsid\ntrap '_k_stop=1; [ -n \"$_k_child\" ] && { kill -TERM \"-$_k_child\" 2>/dev/null || kill -TERM \"$_k_child\" 2>/dev/null; }; [ -n \"$_s_pid\" ] && kill -KILL \"$_s_pid\" 2>/dev/null' TERM INT\n_k_dir=$NOMAD_TASK_DIR\n[ -n \"$_k_dir\" ] || _k_dir=.\n_k_i=$NOMAD_ALLOC_INDEX\n[ -n \"$_k_i\" ] || _k_i=0\n_k_streak=0\n_k_rc=0\nwhile :; do\n\t_k_t0=$(js_now_ms)\n\t$_k_setsid \"$@\" &\n\t_k_child=$!\n\t[ \"$_k_stop\" = 1 ] && { kill -TERM \"-$_k_child\" 2>/dev/null || kill -TERM \"$_k_child\" 2>/dev/null; }\n\twait \"$_k_child\"\n\t_k_rc=$?\n\twhile kill -0 \"$_k_child\" 2>/dev/null; do\n\t\twait \"$_k_child\"\n\t\t_k_rc=$?\n\tdone\n\tif [ \"$_k_stop\" = 1 ]; then\n\t\twhile kill -0 \"-$_k_child\" 2>/dev/null; do sleep 0.1; done\n\tfi\n\t_k_child=\n\t_k_t1=$(js_now_ms)\n\techo \"$_k_t0 $_k_t1 $_k_rc\" >>\"$_k_dir/jobshift-runs\"\n\t[ \"$_k_stop\" = 1 ] && break\n\tjs_restart \"$_t_role\" \"$_k_rc\" \"$_k_dir\" \"$_k_i\" || break\n\tjs_backoff \"$_k_streak\" $((_k_t1 - _k_t0))\n\t_k_streak=$_b_streak\n\tprintf 'jobshift: task exited with %s; restarting it in place after %s ms (kubelet CrashLoopBackOff)\\n' \"$_k_rc\" \"$_b_wait\" >&2\n\tif [ \"$_b_wait\" -gt 0 ]; then\n\t\tjs_sleep_ms \"$_b_wait\"\n\t\t[ \"$_k_stop\" = 1 ] && break\n\tfi\ndone\nexit \"$_k_rc\"\n", "jobshift-restart", "bash", "-c", "set -o errexit -o nounset -o pipefail\npython3 train.py\n", "user.sh"]
        command = "sh"
      }
      resources {
        cpu    = 100
        memory = 256
        device "nvidia/gpu" {
          count = 1
        }
      }
      template {
        destination = "local/jobshift.env"
        data        = <<EOT
CUDA_VISIBLE_DEVICES={{ env "NVIDIA_VISIBLE_DEVICES" }}
{{ $me := env "NOMAD_ALLOC_INDEX" -}}
{{- $job := env "NOMAD_JOB_ID" -}}
{{- range $s := nomadService "alice-uai-train-uai-0-fc4261e9" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "0/" .) $s }}{{ end }}{{ end }}{{ end -}}
{{- range $i := loop 3 }}{{ if not (scratch.Key (print "0/idx-" $i)) }}jobshift-contract: service alice-uai-train-uai-0-fc4261e9 has no registration with tag idx-{{ $i }}
{{ end }}{{ end -}}
{{- $self0 := scratch.Get (print "0/idx-" $me) -}}
{{- range $s := nomadService "alice-uai-train-uai-1-038a49aa" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "1/" .) $s }}{{ end }}{{ end }}{{ end -}}
{{- range $i := loop 3 }}{{ if not (scratch.Key (print "1/idx-" $i)) }}jobshift-contract: service alice-uai-train-uai-1-038a49aa has no registration with tag idx-{{ $i }}
{{ end }}{{ end -}}
{{- $self1 := scratch.Get (print "1/idx-" $me) -}}
{{ $c1 := "" }}{{ if eq $me "0" }}{{ $c1 = "{\"type\":\"master\",\"index\":0}" }}{{ else }}{{ $c1 = (printf "%s%d%s" "{\"type\":\"worker\",\"index\":" (add -1 (parseInt $me)) "}") }}{{ end -}}
TF_CONFIG={{ (printf "%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s" "{\"cluster\":{\"master\":[" (toJSON (printf "%s:%d" (scratch.Get "1/idx-0").Address (scratch.Get "1/idx-0").Port)) "],\"ps\":[" (toJSON (printf "%s:%d" (scratch.Get "0/idx-0").Address (scratch.Get "0/idx-0").Port)) "," (toJSON (printf "%s:%d" (scratch.Get "0/idx-1").Address (scratch.Get "0/idx-1").Port)) "," (toJSON (printf "%s:%d" (scratch.Get "0/idx-2").Address (scratch.Get "0/idx-2").Port)) "],\"worker\":[" (toJSON (printf "%s:%d" (scratch.Get "1/idx-1").Address (scratch.Get "1/idx-1").Port)) "," (toJSON (printf "%s:%d" (scratch.Get "1/idx-2").Address (scratch.Get "1/idx-2").Port)) "]},\"task\":" $c1 ",\"environment\":\"cloud\"}") | toJSON }}
EOT
        change_mode = "noop"
        once        = true
        env         = true
      }
      template {
        destination = "local/jobshift-taskns.sh"
        data        = "{{ base64Decode \"IyBqb2JzaGlmdCB0YXNrIG5hbWVzcGFjZTogd2hhdCBhIHBvZCBvciBjb250YWluZXIgZ2F2ZSBlYWNoIHRhc2sgYmVzaWRlcwojIGl0cyBjb21tYW5kLCByZWJ1aWx0IGZvciBhIHBsYWluIHByb2Nlc3MgKFNsdXJtIHN0ZXAsIE5vbWFkIHJhd19leGVjIG9yCiMgZXhlYyB0YXNrLCBsb2NhbCBwcm9jZXNzKToKIyAgIC0gaXRzIG93biBob3N0IG5hbWUgKGhvc3RuYW1lLCBnZXRob3N0bmFtZSgpLCAkSE9TVE5BTUUpLCBpbiBhIHByaXZhdGUKIyAgICAgVVRTIG5hbWVzcGFjZTsKIyAgIC0gYW4gL2V0Yy9ob3N0cyB3aGVyZSBpdHMgb3duIGFuZCBpdHMgcGVlcnMnIHBsYXRmb3JtIG5hbWVzIHJlc29sdmUgdG8KIyAgICAgdGhlaXIgYWRkcmVzc2VzLCBhbmQgZGF0YSBhbmQgcGxhdGZvcm0gZmlsZXMgYXQgdGhlIGpvYidzIG93biBwYXRocywKIyAgICAgaW4gYSBwcml2YXRlIG1vdW50IG5hbWVzcGFjZSAobm90aGluZyByZWFjaGVzIHRoZSBob3N0J3MgbW91bnQgdGFibGUpOwojICAgLSB0aGUgaW50ZXJmYWNlIGNhcnJ5aW5nIHRoZSB0YXNrJ3MgYWRkcmVzcywgZm9yIHRoZSBjb2xsZWN0aXZlCiMgICAgIGxpYnJhcmllcyAoT3Blbk1QSSwgR2xvbywgTkNDTCksIHVubGVzcyB0aGUgam9iIHNldCB0aGVtIGl0c2VsZi4KIyBUaGVuIGl0IGV4ZWNzIHRoZSBjb21tYW5kIHdpdGggaXRzIGFyZ3VtZW50cyB1bmNoYW5nZWQuCiMKIyBVc2FnZTogc2ggdGFza25zLnNoIFNQRUMgLS0gY29tbWFuZCBbYXJncy4uLl0KIyBTUEVDIGhvbGRzIG9uZSBpdGVtIHBlciBsaW5lLCBmaWVsZHMgc2VwYXJhdGVkIGJ5IG9uZSBUQUIgKGRyaXZlcnMvdGFza25zCiMgd3JpdGVzIGl0IGFuZCByZWZ1c2VzIHZhbHVlcyBob2xkaW5nIGEgVEFCIG9yIGEgbmV3bGluZSk6CiMgICBtb2RlICAgIHJvb3QgfCB1c2VyIHwgbm9uZSB8IGF1dG8KIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICByb290OiB1bnNoYXJlIHRoZSBtb3VudCBhbmQgVVRTIG5hbWVzcGFjZXM7CiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgdXNlcjogdGhlIHNhbWUgaW5zaWRlIGEgdXNlciBuYW1lc3BhY2UKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAodW5wcml2aWxlZ2VkKSwgdGhlIGNvbW1hbmQgdGhlbiBydW5zCiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgdW5kZXIgdGhlIGNhbGxlcidzIG93biB1aWQgYW5kIGdpZCBhZ2FpbjsKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICBub25lOiBvbmx5IHRoZSBpbnRlcmZhY2UgdmFyaWFibGVzOwojICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIGF1dG86IHRoZSBmaXJzdCBvZiByb290IGFuZCB1c2VyIHRoaXMKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICBub2RlIGFsbG93cywgZWxzZSBub25lIHdpdGggYSB3YXJuaW5nCiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgKHJlZnVzZWQgd2hlbiB0aGUgc3BlYyBoYXMgYSBiaW5kKQojICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIChhIHRhcmdldCB0aGF0IGtub3dzIG5vdGhpbmcgb2YgaXRzCiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgbm9kZXMgd2hlbiBpdCByZW5kZXJzOiBOb21hZCkKIyAgIHNjcmF0Y2ggRElSICAgICAgICAgICAgICAgICAgIHRoaXMgc3RhcnQncyBwcml2YXRlIGRpcmVjdG9yeQojICAgaG9zdG5hbWUgTkFNRQojICAgaG9zdCAgICBBRERSIE5BTUUuLi4gICAgICAgICAgYW4gL2V0Yy9ob3N0cyBsaW5lIChuYW1lcyBzcGFjZS1zZXBhcmF0ZWQpCiMgICBiaW5kICAgIHJvfHJ3IFNSQyBEU1QgW1RSRUUgW25vbGlua11dCiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICBhIGRpcmVjdG9yeSBvciBmaWxlIGF0IHRoZSBqb2IncyBwYXRoOwojICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgd2l0aCBUUkVFLCBTUkMgbXVzdCBzdGF5IGluc2lkZSBUUkVFIG9uY2UKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIGxpbmtzIGFyZSByZXNvbHZlZCAodGhlIHJlc29sdmVkIHBhdGggaXMKIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIG1vdW50ZWQpLCBhbmQgd2l0aCBub2xpbmsgVFJFRSBtdXN0IG5vdCBiZQojICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgYSBsaW5rIGl0c2VsZiAoYSB1c2VyJ3Mgb3duIGRpcmVjdG9yeSkKIyAgIGVtcHR5ICAgZGlza3xtZW1vcnkgU0laRSBEU1QgW0RJUl0KIyAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIGFuIGVtcHR5RGlyIGF0IERTVDogRElSIChtYWRlIGlmIG1pc3Npbmc7CiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICBub25lOiBhIGZyZXNoIGRpcmVjdG9yeSBvZiB0aGUgc2NyYXRjaAojICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgZGlyZWN0b3J5KSBmb3IgZGlzaywgb3IgYSB0bXBmcyAobWVtb3J5KQojICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgb2YgU0laRSBNaUIgKDA6IG5vIHNpemUgZ2l2ZW4pCiMgICBhZGRyICAgIEFERFIgICAgICAgICAgICAgICAgICB0aGUgdGFzaydzIG93biBhZGRyZXNzIChhbiBJUCwgb3IgYSBuYW1lCiMgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgcmVzb2x2ZWQgd2l0aCBnZXRlbnQpCiMgRXhpdCBjb2RlIDEyNyB3aGVuIHRoZSB2aWV3IGNhbm5vdCBiZSBidWlsdCAodGhlIGNvbW1hbmQgbmV2ZXIgcmFuKS4KCnNldCAtdQpmYWlsKCkgewoJcHJpbnRmICdqb2JzaGlmdCB0YXNrIG5hbWVzcGFjZTogJXNcbicgIiQqIiA+JjIKCWV4aXQgMTI3Cn0KWyAkIyAtZ2UgMyBdICYmIFsgIiQyIiA9IC0tIF0gfHwgZmFpbCAidXNhZ2U6IHRhc2tucy5zaCBTUEVDIC0tIGNvbW1hbmQgW2FyZ3MuLi5dIgpzcGVjPSQxCnNoaWZ0IDIKdGFiPSQocHJpbnRmICdcdCcpCgojIGdldCBLRVkgcHJpbnRzIHRoZSBmaXJzdCB2YWx1ZSBvZiBLRVkgKHRoZSByZXN0IG9mIGl0cyBsaW5lKS4KZ2V0KCkgewoJd2hpbGUgSUZTPSByZWFkIC1yIGxpbmU7IGRvCgkJY2FzZSAkbGluZSBpbiAiJDEkdGFiIiopCgkJCXByaW50ZiAnJXNcbicgIiR7bGluZSMqIiR0YWIifSIKCQkJcmV0dXJuIDAKCQkJOzsKCQllc2FjCglkb25lIDwiJHNwZWMiCglyZXR1cm4gMQp9Cgptb2RlPSQoZ2V0IG1vZGUpIHx8IGZhaWwgIm5vIG1vZGUgaW4gJHNwZWMiCmluc2lkZT0ke0pPQlNISUZUX1RBU0tOU19JTlNJREU6LX0KaWYgWyAiJG1vZGUiID0gYXV0byBdICYmIFsgLXogIiRpbnNpZGUiIF07IHRoZW4KCW1vZGU9bm9uZQoJaWYgWyAiJChpZCAtdSkiID0gMCBdICYmIHVuc2hhcmUgLS1tb3VudCAtLXV0cyAtLXByb3BhZ2F0aW9uIHByaXZhdGUgdHJ1ZSAyPi9kZXYvbnVsbDsgdGhlbgoJCW1vZGU9cm9vdAoJZWxpZiB1bnNoYXJlIC0tdXNlciAtLW1hcC1yb290LXVzZXIgLS1tb3VudCAtLXV0cyB0cnVlIDI+L2Rldi9udWxsOyB0aGVuCgkJbW9kZT11c2VyCgllbGlmIFsgLW4gIiQoZ2V0IGhvc3RuYW1lKSIgXTsgdGhlbgoJCXByaW50ZiAnJXNcbicgImpvYnNoaWZ0OiB3YXJuaW5nOiB0aGlzIHRhc2sga2VlcHMgdGhlIG5vZGUncyBob3N0IG5hbWUsIG5vdCAkKGdldCBob3N0bmFtZSkgKG5vIHByaXZhdGUgVVRTIG5hbWVzcGFjZTogbm90IHJvb3QsIGFuZCB1bnByaXZpbGVnZWQgdXNlciBuYW1lc3BhY2VzIGFyZSBub3QgYWxsb3dlZCk7IE9wZW5NUEkncyBzaGFyZWQtbWVtb3J5IHRyYW5zcG9ydCwgTkNDTCBhbmQgSG9yb3ZvZCB0YWtlIHRhc2tzIHdpdGggb25lIGhvc3QgbmFtZSBmb3Igb25lIG5vZGU7IGFsbG93IHRoZW0gb24gdGhlIG5vZGVzIChzeXNjdGwga2VybmVsLnVucHJpdmlsZWdlZF91c2VybnNfY2xvbmU9MSwgdXNlci5tYXhfdXNlcl9uYW1lc3BhY2VzID4gMCkgb3IgcnVuIHRoZSB0YXNrIGluIGEgY29udGFpbmVyIiA+JjIKCWZpCglpZiBbICIkbW9kZSIgPSBub25lIF0gJiYgeyBiaW5kPSQoZ2V0IGJpbmQpIHx8IGJpbmQ9JChnZXQgZW1wdHkpOyB9OyB0aGVuCgkJIyBkYXRhIG9yIGEgZmlsZSB0aGUgam9iIG5lZWRzIGF0IGl0cyBwYXRoOiBuZXZlciBzdGFydCB3aXRob3V0IGl0CgkJYmluZD0kKHByaW50ZiAnJXNcbicgIiRiaW5kIiB8IHsgSUZTPSIkdGFiIiByZWFkIC1yIF8gXyBkIF8gJiYgcHJpbnRmICclcycgIiRkIjsgfSkKCQlmYWlsICJ0aGUgdGFzayBuZWVkcyAkYmluZCBhdCB0aGUgcGF0aCB0aGUgam9iIG5hbWVzLCB3aGljaCBhIHBsYWluIHByb2Nlc3MgZ2V0cyBvbmx5IHRocm91Z2ggYSBwcml2YXRlIG1vdW50IG5hbWVzcGFjZSwgYW5kIHRoaXMgbm9kZSBhbGxvd3Mgbm9uZSAobm90IHJvb3QsIGFuZCB1bnByaXZpbGVnZWQgdXNlciBuYW1lc3BhY2VzIGFyZSBub3QgYWxsb3dlZCk7IGFsbG93IHRoZW0gb24gdGhlIG5vZGVzIChzeXNjdGwga2VybmVsLnVucHJpdmlsZWdlZF91c2VybnNfY2xvbmU9MSwgdXNlci5tYXhfdXNlcl9uYW1lc3BhY2VzID4gMCksIHJ1biB0aGUgam9iJ3MgdGFza3MgYXMgcm9vdCwgb3IgdXNlIGEgY29udGFpbmVyIGRyaXZlciAobm9tYWQuZHJpdmVyID0gXCJkb2NrZXJcIikiCglmaQoJWyAiJG1vZGUiID0gbm9uZSBdIHx8IEpPQlNISUZUX1RBU0tOU19NT0RFPSRtb2RlCmZpCm1vZGU9JHtKT0JTSElGVF9UQVNLTlNfTU9ERTotJG1vZGV9CmlmIFsgIiRtb2RlIiAhPSBub25lIF0gJiYgWyAteiAiJGluc2lkZSIgXTsgdGhlbgoJdW5zaGFyZT0kKGNvbW1hbmQgLXYgdW5zaGFyZSkgfHwgZmFpbCAidW5zaGFyZSAodXRpbC1saW51eCkgbm90IGZvdW5kIG9uIFBBVEgiCgljYXNlICRtb2RlIGluCglyb290KQoJCUpPQlNISUZUX1RBU0tOU19NT0RFPXJvb3QgSk9CU0hJRlRfVEFTS05TX0lOU0lERT1yb290IGV4ZWMgIiR1bnNoYXJlIiAtLW1vdW50IC0tdXRzIC0tcHJvcGFnYXRpb24gcHJpdmF0ZSAvYmluL3NoICIkMCIgIiRzcGVjIiAtLSAiJEAiCgkJOzsKCXVzZXIpCgkJSk9CU0hJRlRfVEFTS05TX01PREU9dXNlciBKT0JTSElGVF9UQVNLTlNfSU5TSURFPSJ1c2VyICQoaWQgLXUpICQoaWQgLWcpIiBleGVjICIkdW5zaGFyZSIgLS11c2VyIC0tbWFwLXJvb3QtdXNlciAtLW1vdW50IC0tdXRzIC0tcHJvcGFnYXRpb24gcHJpdmF0ZSAvYmluL3NoICIkMCIgIiRzcGVjIiAtLSAiJEAiCgkJOzsKCSopIGZhaWwgInVua25vd24gbW9kZSAkbW9kZSIgOzsKCWVzYWMKZmkKdW5zZXQgSk9CU0hJRlRfVEFTS05TX0lOU0lERSBKT0JTSElGVF9UQVNLTlNfTU9ERQoKc2NyYXRjaD0kKGdldCBzY3JhdGNoKSB8fCBzY3JhdGNoPScnCmlmIFsgLW4gIiRzY3JhdGNoIiBdOyB0aGVuCglta2RpciAtcCAiJHNjcmF0Y2giIHx8IGZhaWwgImNhbm5vdCBtYWtlICRzY3JhdGNoIgpmaQpyb290PScnICAgICMgdGhlIG5ldyByb290IHdoZW4gLyBoYWQgdG8gYmUgdW5kZXJsYWlkICh0aGVuIGNocm9vdCkKdW5kZXI9MAoKIyB1bmRlcmxheSBESVIgbWFrZXMgRElSIHdyaXRhYmxlIGluIHRoaXMgbmFtZXNwYWNlIG9ubHk6IGEgdG1wZnMgaG9sZGluZwojIHRoZSBzYW1lIGVudHJpZXMgKGRpcmVjdG9yaWVzIGFuZCBmaWxlcyBib3VuZCwgbGlua3MgY29waWVkKSBpcyBtb3VudGVkCiMgb3ZlciBpdCwgc28gYSBtaXNzaW5nIG1vdW50IHBvaW50IGNhbiBiZSBtYWRlIHdpdGhvdXQgdG91Y2hpbmcgdGhlIGhvc3QuCnVuZGVybGF5KCkgewoJWyAtbiAiJHNjcmF0Y2giIF0gfHwgZmFpbCAibm8gc2NyYXRjaCBkaXJlY3RvcnkgdG8gYnVpbGQgJDEgaW4iCgl1bmRlcj0kKCh1bmRlciArIDEpKQoJdT0kc2NyYXRjaC91bmRlcmxheS0kdW5kZXIKCW1rZGlyIC1wICIkdSIgJiYgbW91bnQgLXQgdG1wZnMgLW8gbW9kZT03NTUgam9ic2hpZnQtdW5kZXJsYXkgIiR1IiB8fCBmYWlsICJjYW5ub3QgbW91bnQgYSB0bXBmcyBvbiAkdSIKCWZvciBlIGluICIkcm9vdCQxIi8qICIkcm9vdCQxIi8uWyEuXSogIiRyb290JDEiLy4uPyo7IGRvCgkJWyAtZSAiJGUiIF0gfHwgWyAtTCAiJGUiIF0gfHwgY29udGludWUKCQliPSR7ZSMjKi99CgkJaWYgWyAtTCAiJGUiIF07IHRoZW4KCQkJbG4gLXMgIiQocmVhZGxpbmsgIiRlIikiICIkdS8kYiIKCQllbGlmIFsgLWQgIiRlIiBdOyB0aGVuCgkJCW1rZGlyICIkdS8kYiIgJiYgbW91bnQgLS1yYmluZCAiJGUiICIkdS8kYiIKCQllbHNlCgkJCTogPiIkdS8kYiIgJiYgbW91bnQgLS1iaW5kICIkZSIgIiR1LyRiIgoJCWZpIHx8IGZhaWwgImNhbm5vdCBzaG93ICRlIGluIHRoZSB0YXNrJ3MgdmlldyBvZiAkMSIKCWRvbmUKCWlmIFsgIiQxIiA9IC8gXTsgdGhlbgoJCXJvb3Q9JHUKCWVsc2UKCQltb3VudCAtLXJiaW5kICIkdSIgIiRyb290JDEiIHx8IGZhaWwgImNhbm5vdCBtb3VudCB0aGUgdGFzaydzIHZpZXcgb2YgJDEiCglmaQp9CgojIG1vdW50cG9pbnQgRFNUIFNSQyBtYWtlcyBEU1QgKGEgZGlyZWN0b3J5IHdoZW4gU1JDIGlzIG9uZSwgZWxzZSBhIGZpbGUpLgptb3VudHBvaW50KCkgewoJWyAtZSAiJHJvb3QkMSIgXSAmJiByZXR1cm4gMAoJYT0kMQoJd2hpbGUgWyAhIC1lICIkcm9vdCRhIiBdICYmIFsgISAtTCAiJHJvb3QkYSIgXTsgZG8KCQlhPSQoZGlybmFtZSAiJGEiKQoJZG9uZQoJWyAtZCAiJHJvb3QkYSIgXSB8fCBmYWlsICIkYSBpcyBub3QgYSBkaXJlY3RvcnksIHNvICQxIGNhbm5vdCBiZSBtYWRlIgoJdW5kZXJsYXkgIiRhIgoJaWYgWyAtZCAiJDIiIF07IHRoZW4KCQlta2RpciAtcCAiJHJvb3QkMSIKCWVsc2UKCQlta2RpciAtcCAiJHJvb3QkKGRpcm5hbWUgIiQxIikiICYmIDogPiIkcm9vdCQxIgoJZmkgfHwgZmFpbCAiY2Fubm90IG1ha2UgJDEgaW4gdGhlIHRhc2sncyB2aWV3Igp9CgojIGludHJlZSBTUkMgVFJFRSBbbm9saW5rXSBwcmludHMgU1JDIHdpdGggaXRzIGxpbmtzIHJlc29sdmVkLCBmYWlsaW5nCiMgd2hlbiB0aGF0IGxlYXZlcyBUUkVFIChyZXNvbHZlZCB0b28pLCBvciwgd2l0aCBub2xpbmssIHdoZW4gVFJFRSBpcyBhCiMgbGluazogbm90aGluZyBvdXRzaWRlIGEgbWFwcGVkIHRyZWUgYmVjb21lcyB2aXNpYmxlIHRvIHRoZSB0YXNrLgppbnRyZWUoKSB7CglpZiBbICIkezM6LX0iID0gbm9saW5rIF0gJiYgWyAtTCAiJDIiIF07IHRoZW4KCQlmYWlsICIkMiBpcyBhIHN5bWJvbGljIGxpbmssIHdoaWNoIHdvdWxkIHNob3cgdGhlIHRhc2sgYW5vdGhlciB0cmVlIHRoYW4gdGhlIG9uZSBtYXBwZWQ7ICQxIGlzIG5vdCBtb3VudGVkIgoJZmkKCXRvcD0kKHJlYWRsaW5rIC1mIC0tICIkMiIpICYmIHJlYWw9JChyZWFkbGluayAtZiAtLSAiJDEiKSB8fCBmYWlsICJjYW5ub3QgcmVzb2x2ZSAkMSBvciAkMiIKCWNhc2UgJHJlYWwvIGluCgkiJHRvcCIvKikgcHJpbnRmICclc1xuJyAiJHJlYWwiIDs7CgkqKSBmYWlsICIkMSBsZWFkcyB0byAkcmVhbCwgb3V0c2lkZSB0aGUgbWFwcGVkIHRyZWUgJDI7IGl0IGlzIG5vdCBtb3VudGVkIiA7OwoJZXNhYwp9CgojIGVtcHR5IE1FRElVTSBTSVpFIERTVCBbRElSXSBtYWtlcyB0aGUgZW1wdHlEaXIgYXQgRFNUIChlbXB0aWVzOiBob3cgbWFueSkuCmVtcHRpZXM9MAplbXB0eSgpIHsKCWVtcHRpZXM9JCgoZW1wdGllcyArIDEpKQoJZD0kezQ6LX0KCWlmIFsgLXogIiRkIiBdOyB0aGVuCgkJWyAtbiAiJHNjcmF0Y2giIF0gfHwgZmFpbCAibm8gc2NyYXRjaCBkaXJlY3RvcnkgdG8gbWFrZSB0aGUgZW1wdHlEaXIgJDMgaW4iCgkJZD0kc2NyYXRjaC9lbXB0eWRpci0kZW1wdGllcwoJZmkKCW1rZGlyIC1wICIkZCIgfHwgZmFpbCAiY2Fubm90IG1ha2UgJGQgZm9yICQzIgoJbW91bnRwb2ludCAiJDMiICIkZCIKCWlmIFsgIiQxIiA9IG1lbW9yeSBdOyB0aGVuCgkJbz1tb2RlPTE3NzcKCQlbICIkMiIgPSAwIF0gfHwgbz0kbyxzaXplPSR7Mn1tCgkJbW91bnQgLXQgdG1wZnMgLW8gIiRvIiBqb2JzaGlmdC1lbXB0eWRpciAiJHJvb3QkMyIgfHwgZmFpbCAiY2Fubm90IG1vdW50IGEgdG1wZnMgYXQgJDMiCgllbHNlCgkJbW91bnQgLS1iaW5kICIkZCIgIiRyb290JDMiIHx8IGZhaWwgImNhbm5vdCBtb3VudCAkZCBhdCAkMyIKCWZpCn0KCmJpbmRzKCkgewoJd2hpbGUgSUZTPSIkdGFiIiByZWFkIC1yIGtpbmQgcm8gc3JjIGRzdCB0cmVlIGZsYWc7IGRvCgkJaWYgWyAiJGtpbmQiID0gZW1wdHkgXTsgdGhlbgoJCQllbXB0eSAiJHJvIiAiJHNyYyIgIiRkc3QiICIkdHJlZSIKCQkJY29udGludWUKCQlmaQoJCVsgIiRraW5kIiA9IGJpbmQgXSB8fCBjb250aW51ZQoJCVsgLWUgIiRzcmMiIF0gfHwgZmFpbCAiJHNyYyAoZm9yICRkc3QpIGRvZXMgbm90IGV4aXN0IgoJCWlmIFsgLW4gIiR0cmVlIiBdOyB0aGVuCgkJCXNyYz0kKGludHJlZSAiJHNyYyIgIiR0cmVlIiAiJGZsYWciKSB8fCBleGl0IDEyNwoJCWZpCgkJbW91bnRwb2ludCAiJGRzdCIgIiRzcmMiCgkJbW91bnQgLS1iaW5kICIkc3JjIiAiJHJvb3QkZHN0IiB8fCBmYWlsICJjYW5ub3QgbW91bnQgJHNyYyBhdCAkZHN0IgoJCWlmIFsgIiRybyIgPSBybyBdOyB0aGVuCgkJCW1vdW50IC1vIHJlbW91bnQsYmluZCxybyAiJHJvb3QkZHN0IiB8fCBmYWlsICJjYW5ub3QgbWFrZSAkZHN0IHJlYWQtb25seSIKCQlmaQoJZG9uZSA8IiRzcGVjIgp9CgojIGhvc3RzIHdyaXRlcyB0aGUgdGFzaydzIC9ldGMvaG9zdHM6IGl0cyBvd24gYW5kIGl0cyBwZWVycycgbmFtZXMgZmlyc3QKIyAodGhlIGZpcnN0IG1hdGNoIHdpbnMpLCB0aGVuIHRoZSBob3N0J3Mgb3duIGVudHJpZXMuCmhvc3RzKCkgewoJd2hpbGUgSUZTPSIkdGFiIiByZWFkIC1yIGtpbmQgYSBuYW1lczsgZG8KCQlbICIka2luZCIgPSBob3N0IF0gJiYgcHJpbnRmICclc1x0JXNcbicgIiRhIiAiJG5hbWVzIgoJZG9uZSA8IiRzcGVjIiA+IiRzY3JhdGNoL2hvc3RzIgoJWyAtcyAiJHNjcmF0Y2gvaG9zdHMiIF0gfHwgcmV0dXJuIDAKCWlmIFsgLWYgL2V0Yy9ob3N0cyBdOyB0aGVuCgkJY2F0IC9ldGMvaG9zdHMgPj4iJHNjcmF0Y2gvaG9zdHMiCglmaQoJbW91bnRwb2ludCAvZXRjL2hvc3RzICIkc2NyYXRjaC9ob3N0cyIKCW1vdW50IC0tYmluZCAiJHNjcmF0Y2gvaG9zdHMiICIkcm9vdC9ldGMvaG9zdHMiIHx8IGZhaWwgImNhbm5vdCBtb3VudCB0aGUgdGFzaydzIC9ldGMvaG9zdHMiCn0KCmlmIFsgIiRtb2RlIiAhPSBub25lIF07IHRoZW4KCW5hbWU9JChnZXQgaG9zdG5hbWUpIHx8IG5hbWU9JycKCWlmIFsgLW4gIiRuYW1lIiBdOyB0aGVuCgkJIyBzZXRob3N0bmFtZSgyKSB0aHJvdWdoIGhvc3RuYW1lKDEpOiAvcHJvYy9zeXMva2VybmVsL2hvc3RuYW1lCgkJIyBiZWxvbmdzIHRvIHRoZSBob3N0J3Mgcm9vdCwgbm90IHRvIGEgdXNlciBuYW1lc3BhY2Uncy4KCQl7IGNvbW1hbmQgLXYgaG9zdG5hbWUgPi9kZXYvbnVsbCAyPiYxICYmIGhvc3RuYW1lICIkbmFtZSI7IH0gfHwKCQkJeyBwcmludGYgJyVzJyAiJG5hbWUiID4vcHJvYy9zeXMva2VybmVsL2hvc3RuYW1lOyB9IDI+L2Rldi9udWxsIHx8CgkJCWZhaWwgImNhbm5vdCBzZXQgdGhlIGhvc3QgbmFtZSAkbmFtZSIKCQlIT1NUTkFNRT0kbmFtZQoJCWV4cG9ydCBIT1NUTkFNRQoJZmkKCWJpbmRzCglob3N0cwpmaQoKIyBpZmFjZSBBRERSIHByaW50cyB0aGUgaW50ZXJmYWNlIHRoYXQgaG9sZHMgQUREUi4KaWZhY2UoKSB7CglhPSQxCgljYXNlICRhIGluCgkqWyEwLTkuOmEtZkEtRl0qKSBhPSQoZ2V0ZW50IGFob3N0cyAiJGEiIDI+L2Rldi9udWxsIHwgeyByZWFkIC1yIHggXyAmJiBwcmludGYgJyVzJyAiJHgiOyB9KSA7OwoJZXNhYwoJWyAtbiAiJGEiIF0gfHwgcmV0dXJuIDEKCWNvbW1hbmQgLXYgaXAgPi9kZXYvbnVsbCAyPiYxIHx8IHJldHVybiAxCglpcCAtbyBhZGRyIHNob3cgMj4vZGV2L251bGwgfCB3aGlsZSByZWFkIC1yIF8gZGV2IGZhbSBjaWRyIF87IGRvCgkJY2FzZSAkZmFtIGluIGluZXQgfCBpbmV0NikgOzsgKikgY29udGludWUgOzsgZXNhYwoJCWlmIFsgIiR7Y2lkciUvKn0iID0gIiRhIiBdOyB0aGVuCgkJCXByaW50ZiAnJXNcbicgIiR7ZGV2JSVAKn0iCgkJCWJyZWFrCgkJZmkKCWRvbmUKfQoKIyBQbGF0Zm9ybSBhZGRpdGlvbnMsIGxpa2UgdGhlIGhvc3RmaWxlIHZhcmlhYmxlczogbmV2ZXIgb3ZlciB3aGF0IGlzIHNldC4KaWYgYWRkcj0kKGdldCBhZGRyKSAmJiBkZXY9JChpZmFjZSAiJGFkZHIiKSAmJiBbIC1uICIkZGV2IiBdOyB0aGVuCglmb3IgdiBpbiBPTVBJX01DQV9idGxfdGNwX2lmX2luY2x1ZGUgT01QSV9NQ0Ffb29iX3RjcF9pZl9pbmNsdWRlIEdMT09fU09DS0VUX0lGTkFNRSBOQ0NMX1NPQ0tFVF9JRk5BTUU7IGRvCgkJZXZhbCAiWyAtbiBcIlwkeyR2K3h9XCIgXSB8fCB7ICR2PVwkZGV2OyBleHBvcnQgJHY7IH0iCglkb25lCmZpCgojIEEgdXNlciBuYW1lc3BhY2UncyByb290IGdvZXMgYmFjayB0byB0aGUgY2FsbGVyJ3Mgb3duIHVpZCBhbmQgZ2lkIGZvcgojIHRoZSBjb21tYW5kIChhIG5lc3RlZCB1c2VyIG5hbWVzcGFjZSBtYXBwaW5nIHRoZW0gb250byBvdXJzKS4gVGhlIG5ldwojIHJvb3QsIGlmIGFueSwgaXMgZW50ZXJlZCBsYXN0OiBhIGNocm9vdGVkIHByb2Nlc3MgbWF5IG5vdCBtYWtlIGEgdXNlcgojIG5hbWVzcGFjZSwgYW5kIHVuc2hhcmUoMSkgZW50ZXJzIGl0IGFmdGVyIG1ha2luZyBvbmUuCnNldCAtLSAtLXdkPSIkKHB3ZCkiIC0tICIkQCIKaWYgWyAtbiAiJHJvb3QiIF07IHRoZW4KCXNldCAtLSAtLXJvb3Q9IiRyb290IiAiJEAiCmZpCmlmIFsgIiRtb2RlIiA9IHVzZXIgXTsgdGhlbgoJaWRzPSR7aW5zaWRlI3VzZXIgfQoJc2V0IC0tIC0tdXNlciAtLW1hcC11c2VyPSIke2lkcyUgKn0iIC0tbWFwLWdyb3VwPSIke2lkcyMqIH0iICIkQCIKZmkKZXhlYyAiJChjb21tYW5kIC12IHVuc2hhcmUpIiAiJEAiCg==\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0644"
      }
      template {
        destination = "local/jobshift-taskns.spec"
        data        = "{{ base64Decode \"bW9kZQlhdXRvCnNjcmF0Y2gJ\" }}{{ env \"NOMAD_TASK_DIR\" }}{{ base64Decode \"L2pvYnNoaWZ0LXRhc2tucy5kCmhvc3RuYW1lCXRyYWluLQ==\" }}{{ env \"NOMAD_ALLOC_INDEX\" }}{{ base64Decode \"Cmhvc3QJ\" }}{{ env \"NOMAD_IP_uai_0\" }}{{ base64Decode \"CXRyYWluLQ==\" }}{{ env \"NOMAD_ALLOC_INDEX\" }}{{ base64Decode \"CmFkZHIJ\" }}{{ env \"NOMAD_IP_uai_0\" }}{{ base64Decode \"Cg==\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0644"
      }
    }
    task "ps" {
      driver      = "raw_exec"
      kill_signal = "SIGTERM"
      config {
        args    = ["-c", "_g_stop=0\n_g_child=\n_g_setsid=\ncommand -v setsid >/dev/null 2>&1 && _g_setsid=setsid\ntrap '_g_stop=1; [ -n \"$_g_child\" ] && { kill -TERM \"-$_g_child\" 2>/dev/null || kill -TERM \"$_g_child\" 2>/dev/null; }' TERM INT\n$_g_setsid \"$@\" &\n_g_child=$!\n[ \"$_g_stop\" = 1 ] && { kill -TERM \"-$_g_child\" 2>/dev/null || kill -TERM \"$_g_child\" 2>/dev/null; }\nwait \"$_g_child\"\n_g_rc=$?\nwhile kill -0 \"$_g_child\" 2>/dev/null; do\n\twait \"$_g_child\"\n\t_g_rc=$?\ndone\nif [ \"$_g_stop\" = 1 ]; then\n\twhile kill -0 \"-$_g_child\" 2>/dev/null; do sleep 0.1; done\nfi\nexit \"$_g_rc\"\n", "jobshift-group", "bash", "-c", "set -o errexit -o nounset -o pipefail\npython3 train.py\n", "user.sh"]
        command = "/bin/sh"
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
{{ $me := env "NOMAD_ALLOC_INDEX" -}}
{{- $job := env "NOMAD_JOB_ID" -}}
{{- range $s := nomadService "alice-uai-train-uai-0-fc4261e9" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "0/" .) $s }}{{ end }}{{ end }}{{ end -}}
{{- range $i := loop 3 }}{{ if not (scratch.Key (print "0/idx-" $i)) }}jobshift-contract: service alice-uai-train-uai-0-fc4261e9 has no registration with tag idx-{{ $i }}
{{ end }}{{ end -}}
{{- $self0 := scratch.Get (print "0/idx-" $me) -}}
{{- range $s := nomadService "alice-uai-train-uai-1-038a49aa" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "1/" .) $s }}{{ end }}{{ end }}{{ end -}}
{{- range $i := loop 3 }}{{ if not (scratch.Key (print "1/idx-" $i)) }}jobshift-contract: service alice-uai-train-uai-1-038a49aa has no registration with tag idx-{{ $i }}
{{ end }}{{ end -}}
{{- $self1 := scratch.Get (print "1/idx-" $me) -}}
TF_CONFIG={{ (printf "%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s" "{\"cluster\":{\"master\":[" (toJSON (printf "%s:%d" (scratch.Get "1/idx-0").Address (scratch.Get "1/idx-0").Port)) "],\"ps\":[" (toJSON (printf "%s:%d" (scratch.Get "0/idx-0").Address (scratch.Get "0/idx-0").Port)) "," (toJSON (printf "%s:%d" (scratch.Get "0/idx-1").Address (scratch.Get "0/idx-1").Port)) "," (toJSON (printf "%s:%d" (scratch.Get "0/idx-2").Address (scratch.Get "0/idx-2").Port)) "],\"worker\":[" (toJSON (printf "%s:%d" (scratch.Get "1/idx-1").Address (scratch.Get "1/idx-1").Port)) "," (toJSON (printf "%s:%d" (scratch.Get "1/idx-2").Address (scratch.Get "1/idx-2").Port)) "]},\"task\":{\"type\":\"ps\",\"index\":" $me "},\"environment\":\"cloud\"}") | toJSON }}
EOT
        change_mode = "noop"
        once        = true
        env         = true
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
      port "uai_0" {
      }
      port "uai_1" {
      }
    }
    meta {
      jobshift_env    = "template over registrations"
      jobshift_judges = "none in the job (a controller or watch -enforce)"
      jobshift_role   = "train"
    }
    service {
      name     = "alice-uai-train-uai-0-fc4261e9"
      tags     = ["idx-$${NOMAD_ALLOC_INDEX}"]
      port     = "uai_0"
      provider = "nomad"
    }
    service {
      name     = "alice-uai-train-uai-1-038a49aa"
      tags     = ["idx-$${NOMAD_ALLOC_INDEX}"]
      port     = "uai_1"
      provider = "nomad"
    }
  }
  meta {
    jobshift_attempt = "0"
    jobshift_format  = "pai-v2"
    jobshift_name    = "uai"
    jobshift_policy  = "{\"name\":\"uai\",\"kind\":\"pai\",\"format\":\"pai-v2\",\"completion\":{\"kind\":\"pai\",\"pos\":{}},\"retry\":{\"jobRetryCount\":0,\"gangAllocation\":false,\"pos\":{}},\"roles\":[{\"name\":\"train\",\"instances\":3,\"minFailed\":null,\"minSucceeded\":null}]}"
    jobshift_shape   = "unwatched: for nomad job run; jobshift convert -watched writes what jobshift run submits"
    jobshift_source  = "uai.yaml"
    jobshift_user    = "alice"
    jobshift_version = "0.1.0-dev"
  }
}
