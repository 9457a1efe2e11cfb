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
        args    = ["$${NOMAD_TASK_DIR}/jobshift-restart.sh", "bash", "-c", "IFS= read -r -d '' _jsh_cmd <\"$1\"; set -- \"$_jsh_cmd\"; unset _jsh_cmd; eval \"$1\" || exit $?", "_", "$${NOMAD_TASK_DIR}/jobshift-command"]
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
        destination = "local/jobshift-restart.sh"
        data        = "{{ base64Decode \"X3Rfa2luZD1wYWkKX3RfZ2FuZz0wCl90X2JsPS0xCl90X2NsYXNzZXM9dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXR1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXR1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXR1dXB1cHV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dQpfdF9ib19pbml0PTEwMDAwIF90X2JvX21heD0zMDAwMDAKX3RfdHJldHJ5XzA9MApfdF90cmV0cnlfMT0wCl90X3JvbGU9MAojIEluLXBsYWNlIHRhc2sgcmVzdGFydHMgKHRyYW5zbGF0ZS9jb21wbGV0aW9uLlRhc2tSZXN0YXJ0RGVjaXNpb24pIGluIFBPU0lYCiMgc2gsIHJ1biBieSBlYWNoIHRhc2sncyBzdGFnZSAxIGFmdGVyIGl0cyB1c2VyIGNvbW1hbmQgZW5kZWQuIEEgdGFzayBpcwojIHJlcG9ydGVkIGVuZGVkIChpdHMgZXhpdCBjb2RlIGZpbGUgd3JpdHRlbikgb25seSBvbmNlIG5vIHJlc3RhcnQgaXMgZHVlLAojIHdoaWNoIGlzIHdoYXQgdGhlIGNvbXBsZXRpb24gcnVsZXMgZXhwZWN0LgojCiMgRGF0YSAocmVuZGVyZWQgaW50byB0aGUgdGFzayBwcm9ncmFtKTogX3Rfa2luZCBwYWl8dGZ8cHl0b3JjaHxub25lOwojIF90X2dhbmcgKFBBSSBnYW5nIGFsbG9jYXRpb246IG5vIHRhc2sgcmVzdGFydHMpOyBfdF90cmV0cnlfUiAoUEFJCiMgdGFza1JldHJ5Q291bnQgb2Ygcm9sZSBSKTsgX3RfcnNfUiAoS3ViZWZsb3cgcmVzdGFydCBwb2xpY3kgb2Ygcm9sZSBSIGFzCiMgMjU2IGNoYXJhY3RlcnM6IHRoZSAoY29kZSsxKXRoIGlzIDEgd2hlbiBleGl0IGNvZGUgY29kZSByZXN0YXJ0cyk7IF90X2JsCiMgKEt1YmVmbG93IGJhY2tvZmZMaW1pdCwgLTEgPSBub25lKTsgX3RfY2xhc3NlcyAoT3BlblBBSSBjbGFzcyBvZiBlYWNoIHJhdwojIGV4aXQgY29kZSAwLi4yNTU6IHQgdHJhbnNpZW50LCBwIHBlcm1hbmVudCwgdSB1bmtub3duKS4KIwojIF90X2JvX2luaXQsIF90X2JvX21heDogdGhlIHJlc3RhcnQgYmFjay1vZmYgaW4gbWlsbGlzZWNvbmRzCiMgKGNvbXBsZXRpb24uQmFja29mZiwgdGhlIGt1YmVsZXQncyBDcmFzaExvb3BCYWNrT2ZmOiAxMDAwMCAzMDAwMDApLgojCiMganNfcmVzdGFydCBSIENPREUgRElSIEk6IDAgPSByZXN0YXJ0IHRoZSB0YXNrLiBDb3VudGVkIHJlc3RhcnRzIGFyZSBrZXB0CiMgaW4gRElSOiBwZXIgdGFzayBmb3IgUEFJIChyZXN0YXJ0cy5SLkkpLCBqb2Itd2lkZSBmb3IgS3ViZWZsb3cKIyAocmVzdGFydHMuam9iLCB3aG9zZSBiYWNrb2ZmTGltaXQgY291bnRzIGV2ZXJ5IHRhc2sncyByZXN0YXJ0cykuCgpqc19jb3VudGVyX2FkZCgpIHsKCSMgbWtkaXIgaXMgYXRvbWljIG9uIHNoYXJlZCBmaWxlIHN5c3RlbXM6IGEgbG9jayBhcm91bmQgcmVhZCt3cml0ZQoJX2xfbj0wCgl1bnRpbCBta2RpciAiJDEubG9jayIgMj4vZGV2L251bGw7IGRvCgkJc2xlZXAgMC4wNQoJCV9sX249JCgoX2xfbiArIDEpKQoJCVsgIiRfbF9uIiAtZ3QgMjAwIF0gJiYgcm1kaXIgIiQxLmxvY2siIDI+L2Rldi9udWxsCglkb25lCglfbF92PSQoY2F0ICIkMSIgMj4vZGV2L251bGwgfHwgZWNobyAwKQoJZWNobyAkKChfbF92ICsgMSkpID4iJDEiCglybWRpciAiJDEubG9jayIKfQoKanNfcmVzdGFydCgpIHsKCWNhc2UgJF90X2tpbmQgaW4KCXBhaSkKCQlbICIkX3RfZ2FuZyIgPSAxIF0gJiYgcmV0dXJuIDEKCQlbICIkMiIgPSAwIF0gJiYgcmV0dXJuIDEKCQlfcl9jbHM9dQoJCWlmIFsgIiQyIiAtZ2UgMCBdICYmIFsgIiQyIiAtbGUgMjU1IF07IHRoZW4KCQkJX3JfY2xzPSQocHJpbnRmICclcycgIiRfdF9jbGFzc2VzIiB8IGN1dCAtYyIkKCgkMiArIDEpKSIpCgkJZmkKCQljYXNlICRfcl9jbHMgaW4KCQl0KSByZXR1cm4gMCA7OwoJCXApIHJldHVybiAxIDs7CgkJZXNhYwoJCWV2YWwgIl9yX21heD1cJF90X3RyZXRyeV8kMSIKCQlfcl9mPSQzL3Jlc3RhcnRzLiQxLiQ0CgkJX3Jfc289JChjYXQgIiRfcl9mIiAyPi9kZXYvbnVsbCB8fCBlY2hvIDApCgkJaWYgWyAiJF9yX21heCIgPSAtMSBdIHx8IFsgIiRfcl9zbyIgLWx0ICIkX3JfbWF4IiBdOyB0aGVuCgkJCWpzX2NvdW50ZXJfYWRkICIkX3JfZiIKCQkJcmV0dXJuIDAKCQlmaQoJCXJldHVybiAxCgkJOzsKCXRmIHwgcHl0b3JjaCkKCQlbICIkMiIgLWdlIDAgXSAmJiBbICIkMiIgLWxlIDI1NSBdIHx8IHJldHVybiAxCgkJZXZhbCAiX3JfcnM9XCRfdF9yc18kMSIKCQlbICIkKHByaW50ZiAnJXMnICIkX3JfcnMiIHwgY3V0IC1jIiQoKCQyICsgMSkpIikiID0gMSBdIHx8IHJldHVybiAxCgkJX3JfZj0kMy9yZXN0YXJ0cy5qb2IKCQlpZiBbICIkX3RfYmwiIC1nZSAwIF07IHRoZW4KCQkJX3Jfc289JChjYXQgIiRfcl9mIiAyPi9kZXYvbnVsbCB8fCBlY2hvIDApCgkJCVsgJCgoX3Jfc28gKyAxKSkgLWdlICIkX3RfYmwiIF0gJiYgcmV0dXJuIDEKCQlmaQoJCWpzX2NvdW50ZXJfYWRkICIkX3JfZiIKCQlyZXR1cm4gMAoJCTs7Cgllc2FjCglyZXR1cm4gMQp9CgojIGpzX2JhY2tvZmYgU1RSRUFLIFJBTl9NUyBzZXRzIF9iX3dhaXQgKG1pbGxpc2Vjb25kcyB0byB3YWl0IGJlZm9yZSB0aGUKIyByZXN0YXJ0KSBhbmQgX2Jfc3RyZWFrLCBhcyBjb21wbGV0aW9uLkJhY2tvZmYuTmV4dDogdGhlIGZpcnN0IHJlc3RhcnQgb2YgYQojIHN0cmVhayBhdCBvbmNlOyB0aGVuIF90X2JvX2luaXQsIGRvdWJsaW5nLCBjYXBwZWQgYXQgX3RfYm9fbWF4OyBhIHJ1biBvZgojIG1vcmUgdGhhbiAyIHggX3RfYm9fbWF4IHNpbmNlIGl0cyBzdGFydCBiZWdpbnMgYSBuZXcgc3RyZWFrLgpqc19iYWNrb2ZmKCkgewoJaWYgWyAiJDEiIC1sZSAwIF0gfHwgWyAiJDIiIC1ndCAkKCgyICogX3RfYm9fbWF4KSkgXTsgdGhlbgoJCV9iX3dhaXQ9MAoJCV9iX3N0cmVhaz0xCgkJcmV0dXJuCglmaQoJX2Jfd2FpdD0kX3RfYm9faW5pdAoJX2Jfbj0xCgl3aGlsZSBbICIkX2JfbiIgLWx0ICIkMSIgXSAmJiBbICIkX2Jfd2FpdCIgLWx0ICIkX3RfYm9fbWF4IiBdOyBkbwoJCV9iX3dhaXQ9JCgoX2Jfd2FpdCAqIDIpKQoJCV9iX249JCgoX2JfbiArIDEpKQoJZG9uZQoJWyAiJF9iX3dhaXQiIC1ndCAiJF90X2JvX21heCIgXSAmJiBfYl93YWl0PSRfdF9ib19tYXgKCV9iX3N0cmVhaz0kKCgkMSArIDEpKQp9CgojIGpzX25vd19tczogbWlsbGlzZWNvbmRzIHNpbmNlIHRoZSBlcG9jaDsgd2hvbGUgc2Vjb25kcyB3aGVyZSBkYXRlIGhhcyBubwojICVOIChzb21lIGltYWdlcycgZGF0ZSBwcmludHMgaXQgbGl0ZXJhbGx5KS4KanNfbm93X21zKCkgewoJX25fbnM9JChkYXRlICslcyVOKQoJY2FzZSAkX25fbnMgaW4KCScnIHwgKlshMC05XSopIGVjaG8gJCgoJChkYXRlICslcykgKiAxMDAwKSkgOzsKCSopIGVjaG8gJCgoX25fbnMgLyAxMDAwMDAwKSkgOzsKCWVzYWMKfQoKIyBqc19zbGVlcF9tcyBNUzogc2xlZXAgaW4gdGhlIGJhY2tncm91bmQgYW5kIHdhaXQgZm9yIGl0LCBzbyBhIHN0b3AgKHRoZQojIGNhbGxlcidzIHRyYXAgc2V0cyBfa19zdG9wPTEgYW5kIGtpbGxzICRfc19waWQpIGVuZHMgdGhlIHdhaXQgYXQgb25jZS4gQQojIHNsZWVwIHdpdGhvdXQgZnJhY3Rpb25zIHNsZWVwcyB3aG9sZSBzZWNvbmRzIHJvdW5kZWQgdXAgKG5ldmVyIHNob3J0ZXIKIyB0aGFuIHRoZSBiYWNrLW9mZikuIFRoZSBzbGVlcCBpcyBhIGRpcmVjdCBjaGlsZCwgc28ga2lsbGluZyBpdCBlbmRzIGl0Lgpqc19zbGVlcF9tcygpIHsKCVsgIiR7X2tfc3RvcDotMH0iID0gMSBdICYmIHJldHVybiAwCglpZiBbIC16ICIke19zX2ZyYWM6LX0iIF07IHRoZW4KCQlfc19mcmFjPTAKCQlzbGVlcCAwLjAwMSAyPi9kZXYvbnVsbCAmJiBfc19mcmFjPTEKCWZpCglpZiBbICIkX3NfZnJhYyIgPSAxIF07IHRoZW4KCQlzbGVlcCAiJCgoJDEgLyAxMDAwKSkuJChwcmludGYgJyUwM2QnICQoKCQxICUgMTAwMCkpKSIgJgoJZWxzZQoJCXNsZWVwICQoKCgkMSArIDk5OSkgLyAxMDAwKSkgJgoJZmkKCV9zX3BpZD0kIQoJIyBhIHN0b3AgdGhhdCBjYW1lIGJlZm9yZSAkX3NfcGlkIHdhcyBrbm93bgoJWyAiJHtfa19zdG9wOi0wfSIgPSAxIF0gJiYga2lsbCAiJF9zX3BpZCIgMj4vZGV2L251bGwKCXdhaXQgIiRfc19waWQiCglraWxsICIkX3NfcGlkIiAyPi9kZXYvbnVsbAoJd2FpdCAiJF9zX3BpZCIgMj4vZGV2L251bGwKCV9zX3BpZD0KCXJldHVybiAwCn0KIyBJbi1wbGFjZSB0YXNrIHJlc3RhcnRzIG9uIE5vbWFkIChqb2JzaGlmdCk6IHJ1bnMgdGhlIHRhc2sncyBjb21tYW5kICgiJEAiKQojIGFuZCwgd2hlbiBpdCBlbmRzLCByZXN0YXJ0cyBpdCBpbiBwbGFjZSBhcyBpdHMgc291cmNlIHBsYXRmb3JtIHdvdWxkCiMgKGpzX3Jlc3RhcnQgPSBjb21wbGV0aW9uLlRhc2tSZXN0YXJ0RGVjaXNpb24pIGFmdGVyIHRoZSBrdWJlbGV0J3MKIyBiYWNrLW9mZiAoanNfYmFja29mZiA9IGNvbXBsZXRpb24uQmFja29mZikuIE5vbWFkJ3Mgb3duIHJlc3RhcnQgYmxvY2sgaGFzCiMgb25seSBhIGNvbnN0YW50IGRlbGF5LCBhbmQgaXRzIGV4cG9uZW50aWFsIGRlbGF5X2Z1bmN0aW9uIGlzIGZvcgojIHJlc2NoZWR1bGluZyAoYSBuZXcgYWxsb2NhdGlvbiwgbmV3IHBvcnRzKSwgc28gdGhlIGxvb3AgbGl2ZXMgaW4gdGhlIHRhc2suCiMKIyBEYXRhIChyZW5kZXJlZCBiZWZvcmUgdGhpcyB0ZXh0KTogY29tcGxldGlvbi5SZXN0YXJ0U2hlbGxEYXRhLCBhbmQKIyBfdF9yb2xlLCB0aGUgcm9sZSdzIGluZGV4LiBDb3VudGVkIHJlc3RhcnRzIGFuZCBldmVyeSBydW4ncyBzdGFydC9lbmQKIyAobWlsbGlzZWNvbmRzKSBhbmQgZXhpdCBjb2RlIGFyZSBrZXB0IGluIHRoZSB0YXNrIGRpcmVjdG9yeS4KCl9rX3N0b3A9MApfa19jaGlsZD0KIyBBIHN0b3AgKE5vbWFkJ3Mga2lsbF9zaWduYWwpIGlzIHBhc3NlZCBvbiBhcyBTSUdURVJNLCBhcyB0aGUga3ViZWxldAojIHN0b3BzIGEgY29udGFpbmVyOyB0aGUgY29tbWFuZCBpcyBuZXZlciByZXN0YXJ0ZWQgYWZ0ZXIgaXQuIFRoZSBjb21tYW5kCiMgcnVucyBpbiBpdHMgb3duIHByb2Nlc3MgZ3JvdXAgKHNldHNpZDogZGFzaCBoYXMgbm8gam9iIGNvbnRyb2wgd2l0aG91dCBhCiMgdGVybWluYWwpIGFuZCB0aGUgd2hvbGUgZ3JvdXAgZ2V0cyB0aGUgc2lnbmFsOiBOb21hZCBzaWduYWxzIG9ubHkgdGhpcwojIHNoZWxsLCBhbmQgYSBzaGVsbCBiZXR3ZWVuIGl0IGFuZCB0aGUgdXNlcidzIHByb2Nlc3MgKHNoIC1jICIuLi4iKSB3b3VsZAojIGRpZSBvZiBTSUdURVJNIGF0IG9uY2UsIGFmdGVyIHdoaWNoIE5vbWFkIGtpbGxzIHdoYXQgaXMgbGVmdCwgdGhlIHVzZXIncwojIHByb2Nlc3MgaW4gaXRzIGNoZWNrcG9pbnQgKGZvdW5kIGJ5IHRoZSBmYXVsdCBzdWl0ZSwgaW50ZWdyYXRpb24vZmF1bHRzKS4KIyAoTm8gIi0tIiBiZWZvcmUgYSBuZWdhdGl2ZSBQSUQ6IGRhc2gncyBraWxsIHRha2VzIG5vbmUuKQpfa19zZXRzaWQ9CmNvbW1hbmQgLXYgc2V0c2lkID4vZGV2L251bGwgMj4mMSAmJiBfa19zZXRzaWQ9c2V0c2lkCnRyYXAgJ19rX3N0b3A9MTsgWyAtbiAiJF9rX2NoaWxkIiBdICYmIHsga2lsbCAtVEVSTSAiLSRfa19jaGlsZCIgMj4vZGV2L251bGwgfHwga2lsbCAtVEVSTSAiJF9rX2NoaWxkIiAyPi9kZXYvbnVsbDsgfTsgWyAtbiAiJHtfc19waWQ6LX0iIF0gJiYga2lsbCAiJF9zX3BpZCIgMj4vZGV2L251bGwnIFRFUk0gSU5UCl9rX2Rpcj0ke05PTUFEX1RBU0tfRElSOi0ufQpfa19pPSR7Tk9NQURfQUxMT0NfSU5ERVg6LTB9Cl9rX3N0cmVhaz0wCl9rX3JjPTAKd2hpbGUgOjsgZG8KCV9rX3QwPSQoanNfbm93X21zKQoJJF9rX3NldHNpZCAiJEAiICYKCV9rX2NoaWxkPSQhCgl3YWl0ICIkX2tfY2hpbGQiCglfa19yYz0kPwoJIyBhIHRyYXBwZWQgc2lnbmFsIGVuZHMgd2FpdCBlYXJseTogd2FpdCBhZ2FpbiBmb3IgdGhlIGNvbW1hbmQncyBvd24gZW5kCgl3aGlsZSBraWxsIC0wICIkX2tfY2hpbGQiIDI+L2Rldi9udWxsOyBkbwoJCXdhaXQgIiRfa19jaGlsZCIKCQlfa19yYz0kPwoJZG9uZQoJaWYgWyAiJF9rX3N0b3AiID0gMSBdOyB0aGVuCgkJIyB0aGUgcmVzdCBvZiB0aGUgZ3JvdXAgZmluaXNoZXMgaXRzIGNoZWNrcG9pbnQgKE5vbWFkJ3MKCQkjIGtpbGxfdGltZW91dCBib3VuZHMgdGhlIHdhaXQ6IHRoZW4gaXQga2lsbHMgZXZlcnkgcHJvY2VzcykKCQl3aGlsZSBraWxsIC0wICItJF9rX2NoaWxkIiAyPi9kZXYvbnVsbDsgZG8gc2xlZXAgMC4xOyBkb25lCglmaQoJX2tfY2hpbGQ9Cglfa190MT0kKGpzX25vd19tcykKCWVjaG8gIiRfa190MCAkX2tfdDEgJF9rX3JjIiA+PiIkX2tfZGlyL2pvYnNoaWZ0LXJ1bnMiCglbICIkX2tfc3RvcCIgPSAxIF0gJiYgYnJlYWsKCWpzX3Jlc3RhcnQgIiRfdF9yb2xlIiAiJF9rX3JjIiAiJF9rX2RpciIgIiRfa19pIiB8fCBicmVhawoJanNfYmFja29mZiAiJF9rX3N0cmVhayIgJCgoX2tfdDEgLSBfa190MCkpCglfa19zdHJlYWs9JF9iX3N0cmVhawoJcHJpbnRmICdqb2JzaGlmdDogdGFzayBleGl0ZWQgd2l0aCAlczsgcmVzdGFydGluZyBpdCBpbiBwbGFjZSBhZnRlciAlcyBtcyAoa3ViZWxldCBDcmFzaExvb3BCYWNrT2ZmKVxuJyAiJF9rX3JjIiAiJF9iX3dhaXQiID4mMgoJaWYgWyAiJF9iX3dhaXQiIC1ndCAwIF07IHRoZW4KCQlqc19zbGVlcF9tcyAiJF9iX3dhaXQiCgkJWyAiJF9rX3N0b3AiID0gMSBdICYmIGJyZWFrCglmaQpkb25lCmV4aXQgIiRfa19yYyIK\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0755"
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
      jobshift_role = "ps"
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
        args    = ["$${NOMAD_TASK_DIR}/jobshift-restart.sh", "bash", "-c", "IFS= read -r -d '' _jsh_cmd <\"$1\"; set -- \"$_jsh_cmd\"; unset _jsh_cmd; eval \"$1\" || exit $?", "_", "$${NOMAD_TASK_DIR}/jobshift-command"]
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
        destination = "local/jobshift-restart.sh"
        data        = "{{ base64Decode \"X3Rfa2luZD1wYWkKX3RfZ2FuZz0wCl90X2JsPS0xCl90X2NsYXNzZXM9dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXR1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXR1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXR1dXB1cHV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dQpfdF9ib19pbml0PTEwMDAwIF90X2JvX21heD0zMDAwMDAKX3RfdHJldHJ5XzA9MApfdF90cmV0cnlfMT0wCl90X3JvbGU9MQojIEluLXBsYWNlIHRhc2sgcmVzdGFydHMgKHRyYW5zbGF0ZS9jb21wbGV0aW9uLlRhc2tSZXN0YXJ0RGVjaXNpb24pIGluIFBPU0lYCiMgc2gsIHJ1biBieSBlYWNoIHRhc2sncyBzdGFnZSAxIGFmdGVyIGl0cyB1c2VyIGNvbW1hbmQgZW5kZWQuIEEgdGFzayBpcwojIHJlcG9ydGVkIGVuZGVkIChpdHMgZXhpdCBjb2RlIGZpbGUgd3JpdHRlbikgb25seSBvbmNlIG5vIHJlc3RhcnQgaXMgZHVlLAojIHdoaWNoIGlzIHdoYXQgdGhlIGNvbXBsZXRpb24gcnVsZXMgZXhwZWN0LgojCiMgRGF0YSAocmVuZGVyZWQgaW50byB0aGUgdGFzayBwcm9ncmFtKTogX3Rfa2luZCBwYWl8dGZ8cHl0b3JjaHxub25lOwojIF90X2dhbmcgKFBBSSBnYW5nIGFsbG9jYXRpb246IG5vIHRhc2sgcmVzdGFydHMpOyBfdF90cmV0cnlfUiAoUEFJCiMgdGFza1JldHJ5Q291bnQgb2Ygcm9sZSBSKTsgX3RfcnNfUiAoS3ViZWZsb3cgcmVzdGFydCBwb2xpY3kgb2Ygcm9sZSBSIGFzCiMgMjU2IGNoYXJhY3RlcnM6IHRoZSAoY29kZSsxKXRoIGlzIDEgd2hlbiBleGl0IGNvZGUgY29kZSByZXN0YXJ0cyk7IF90X2JsCiMgKEt1YmVmbG93IGJhY2tvZmZMaW1pdCwgLTEgPSBub25lKTsgX3RfY2xhc3NlcyAoT3BlblBBSSBjbGFzcyBvZiBlYWNoIHJhdwojIGV4aXQgY29kZSAwLi4yNTU6IHQgdHJhbnNpZW50LCBwIHBlcm1hbmVudCwgdSB1bmtub3duKS4KIwojIF90X2JvX2luaXQsIF90X2JvX21heDogdGhlIHJlc3RhcnQgYmFjay1vZmYgaW4gbWlsbGlzZWNvbmRzCiMgKGNvbXBsZXRpb24uQmFja29mZiwgdGhlIGt1YmVsZXQncyBDcmFzaExvb3BCYWNrT2ZmOiAxMDAwMCAzMDAwMDApLgojCiMganNfcmVzdGFydCBSIENPREUgRElSIEk6IDAgPSByZXN0YXJ0IHRoZSB0YXNrLiBDb3VudGVkIHJlc3RhcnRzIGFyZSBrZXB0CiMgaW4gRElSOiBwZXIgdGFzayBmb3IgUEFJIChyZXN0YXJ0cy5SLkkpLCBqb2Itd2lkZSBmb3IgS3ViZWZsb3cKIyAocmVzdGFydHMuam9iLCB3aG9zZSBiYWNrb2ZmTGltaXQgY291bnRzIGV2ZXJ5IHRhc2sncyByZXN0YXJ0cykuCgpqc19jb3VudGVyX2FkZCgpIHsKCSMgbWtkaXIgaXMgYXRvbWljIG9uIHNoYXJlZCBmaWxlIHN5c3RlbXM6IGEgbG9jayBhcm91bmQgcmVhZCt3cml0ZQoJX2xfbj0wCgl1bnRpbCBta2RpciAiJDEubG9jayIgMj4vZGV2L251bGw7IGRvCgkJc2xlZXAgMC4wNQoJCV9sX249JCgoX2xfbiArIDEpKQoJCVsgIiRfbF9uIiAtZ3QgMjAwIF0gJiYgcm1kaXIgIiQxLmxvY2siIDI+L2Rldi9udWxsCglkb25lCglfbF92PSQoY2F0ICIkMSIgMj4vZGV2L251bGwgfHwgZWNobyAwKQoJZWNobyAkKChfbF92ICsgMSkpID4iJDEiCglybWRpciAiJDEubG9jayIKfQoKanNfcmVzdGFydCgpIHsKCWNhc2UgJF90X2tpbmQgaW4KCXBhaSkKCQlbICIkX3RfZ2FuZyIgPSAxIF0gJiYgcmV0dXJuIDEKCQlbICIkMiIgPSAwIF0gJiYgcmV0dXJuIDEKCQlfcl9jbHM9dQoJCWlmIFsgIiQyIiAtZ2UgMCBdICYmIFsgIiQyIiAtbGUgMjU1IF07IHRoZW4KCQkJX3JfY2xzPSQocHJpbnRmICclcycgIiRfdF9jbGFzc2VzIiB8IGN1dCAtYyIkKCgkMiArIDEpKSIpCgkJZmkKCQljYXNlICRfcl9jbHMgaW4KCQl0KSByZXR1cm4gMCA7OwoJCXApIHJldHVybiAxIDs7CgkJZXNhYwoJCWV2YWwgIl9yX21heD1cJF90X3RyZXRyeV8kMSIKCQlfcl9mPSQzL3Jlc3RhcnRzLiQxLiQ0CgkJX3Jfc289JChjYXQgIiRfcl9mIiAyPi9kZXYvbnVsbCB8fCBlY2hvIDApCgkJaWYgWyAiJF9yX21heCIgPSAtMSBdIHx8IFsgIiRfcl9zbyIgLWx0ICIkX3JfbWF4IiBdOyB0aGVuCgkJCWpzX2NvdW50ZXJfYWRkICIkX3JfZiIKCQkJcmV0dXJuIDAKCQlmaQoJCXJldHVybiAxCgkJOzsKCXRmIHwgcHl0b3JjaCkKCQlbICIkMiIgLWdlIDAgXSAmJiBbICIkMiIgLWxlIDI1NSBdIHx8IHJldHVybiAxCgkJZXZhbCAiX3JfcnM9XCRfdF9yc18kMSIKCQlbICIkKHByaW50ZiAnJXMnICIkX3JfcnMiIHwgY3V0IC1jIiQoKCQyICsgMSkpIikiID0gMSBdIHx8IHJldHVybiAxCgkJX3JfZj0kMy9yZXN0YXJ0cy5qb2IKCQlpZiBbICIkX3RfYmwiIC1nZSAwIF07IHRoZW4KCQkJX3Jfc289JChjYXQgIiRfcl9mIiAyPi9kZXYvbnVsbCB8fCBlY2hvIDApCgkJCVsgJCgoX3Jfc28gKyAxKSkgLWdlICIkX3RfYmwiIF0gJiYgcmV0dXJuIDEKCQlmaQoJCWpzX2NvdW50ZXJfYWRkICIkX3JfZiIKCQlyZXR1cm4gMAoJCTs7Cgllc2FjCglyZXR1cm4gMQp9CgojIGpzX2JhY2tvZmYgU1RSRUFLIFJBTl9NUyBzZXRzIF9iX3dhaXQgKG1pbGxpc2Vjb25kcyB0byB3YWl0IGJlZm9yZSB0aGUKIyByZXN0YXJ0KSBhbmQgX2Jfc3RyZWFrLCBhcyBjb21wbGV0aW9uLkJhY2tvZmYuTmV4dDogdGhlIGZpcnN0IHJlc3RhcnQgb2YgYQojIHN0cmVhayBhdCBvbmNlOyB0aGVuIF90X2JvX2luaXQsIGRvdWJsaW5nLCBjYXBwZWQgYXQgX3RfYm9fbWF4OyBhIHJ1biBvZgojIG1vcmUgdGhhbiAyIHggX3RfYm9fbWF4IHNpbmNlIGl0cyBzdGFydCBiZWdpbnMgYSBuZXcgc3RyZWFrLgpqc19iYWNrb2ZmKCkgewoJaWYgWyAiJDEiIC1sZSAwIF0gfHwgWyAiJDIiIC1ndCAkKCgyICogX3RfYm9fbWF4KSkgXTsgdGhlbgoJCV9iX3dhaXQ9MAoJCV9iX3N0cmVhaz0xCgkJcmV0dXJuCglmaQoJX2Jfd2FpdD0kX3RfYm9faW5pdAoJX2Jfbj0xCgl3aGlsZSBbICIkX2JfbiIgLWx0ICIkMSIgXSAmJiBbICIkX2Jfd2FpdCIgLWx0ICIkX3RfYm9fbWF4IiBdOyBkbwoJCV9iX3dhaXQ9JCgoX2Jfd2FpdCAqIDIpKQoJCV9iX249JCgoX2JfbiArIDEpKQoJZG9uZQoJWyAiJF9iX3dhaXQiIC1ndCAiJF90X2JvX21heCIgXSAmJiBfYl93YWl0PSRfdF9ib19tYXgKCV9iX3N0cmVhaz0kKCgkMSArIDEpKQp9CgojIGpzX25vd19tczogbWlsbGlzZWNvbmRzIHNpbmNlIHRoZSBlcG9jaDsgd2hvbGUgc2Vjb25kcyB3aGVyZSBkYXRlIGhhcyBubwojICVOIChzb21lIGltYWdlcycgZGF0ZSBwcmludHMgaXQgbGl0ZXJhbGx5KS4KanNfbm93X21zKCkgewoJX25fbnM9JChkYXRlICslcyVOKQoJY2FzZSAkX25fbnMgaW4KCScnIHwgKlshMC05XSopIGVjaG8gJCgoJChkYXRlICslcykgKiAxMDAwKSkgOzsKCSopIGVjaG8gJCgoX25fbnMgLyAxMDAwMDAwKSkgOzsKCWVzYWMKfQoKIyBqc19zbGVlcF9tcyBNUzogc2xlZXAgaW4gdGhlIGJhY2tncm91bmQgYW5kIHdhaXQgZm9yIGl0LCBzbyBhIHN0b3AgKHRoZQojIGNhbGxlcidzIHRyYXAgc2V0cyBfa19zdG9wPTEgYW5kIGtpbGxzICRfc19waWQpIGVuZHMgdGhlIHdhaXQgYXQgb25jZS4gQQojIHNsZWVwIHdpdGhvdXQgZnJhY3Rpb25zIHNsZWVwcyB3aG9sZSBzZWNvbmRzIHJvdW5kZWQgdXAgKG5ldmVyIHNob3J0ZXIKIyB0aGFuIHRoZSBiYWNrLW9mZikuIFRoZSBzbGVlcCBpcyBhIGRpcmVjdCBjaGlsZCwgc28ga2lsbGluZyBpdCBlbmRzIGl0Lgpqc19zbGVlcF9tcygpIHsKCVsgIiR7X2tfc3RvcDotMH0iID0gMSBdICYmIHJldHVybiAwCglpZiBbIC16ICIke19zX2ZyYWM6LX0iIF07IHRoZW4KCQlfc19mcmFjPTAKCQlzbGVlcCAwLjAwMSAyPi9kZXYvbnVsbCAmJiBfc19mcmFjPTEKCWZpCglpZiBbICIkX3NfZnJhYyIgPSAxIF07IHRoZW4KCQlzbGVlcCAiJCgoJDEgLyAxMDAwKSkuJChwcmludGYgJyUwM2QnICQoKCQxICUgMTAwMCkpKSIgJgoJZWxzZQoJCXNsZWVwICQoKCgkMSArIDk5OSkgLyAxMDAwKSkgJgoJZmkKCV9zX3BpZD0kIQoJIyBhIHN0b3AgdGhhdCBjYW1lIGJlZm9yZSAkX3NfcGlkIHdhcyBrbm93bgoJWyAiJHtfa19zdG9wOi0wfSIgPSAxIF0gJiYga2lsbCAiJF9zX3BpZCIgMj4vZGV2L251bGwKCXdhaXQgIiRfc19waWQiCglraWxsICIkX3NfcGlkIiAyPi9kZXYvbnVsbAoJd2FpdCAiJF9zX3BpZCIgMj4vZGV2L251bGwKCV9zX3BpZD0KCXJldHVybiAwCn0KIyBJbi1wbGFjZSB0YXNrIHJlc3RhcnRzIG9uIE5vbWFkIChqb2JzaGlmdCk6IHJ1bnMgdGhlIHRhc2sncyBjb21tYW5kICgiJEAiKQojIGFuZCwgd2hlbiBpdCBlbmRzLCByZXN0YXJ0cyBpdCBpbiBwbGFjZSBhcyBpdHMgc291cmNlIHBsYXRmb3JtIHdvdWxkCiMgKGpzX3Jlc3RhcnQgPSBjb21wbGV0aW9uLlRhc2tSZXN0YXJ0RGVjaXNpb24pIGFmdGVyIHRoZSBrdWJlbGV0J3MKIyBiYWNrLW9mZiAoanNfYmFja29mZiA9IGNvbXBsZXRpb24uQmFja29mZikuIE5vbWFkJ3Mgb3duIHJlc3RhcnQgYmxvY2sgaGFzCiMgb25seSBhIGNvbnN0YW50IGRlbGF5LCBhbmQgaXRzIGV4cG9uZW50aWFsIGRlbGF5X2Z1bmN0aW9uIGlzIGZvcgojIHJlc2NoZWR1bGluZyAoYSBuZXcgYWxsb2NhdGlvbiwgbmV3IHBvcnRzKSwgc28gdGhlIGxvb3AgbGl2ZXMgaW4gdGhlIHRhc2suCiMKIyBEYXRhIChyZW5kZXJlZCBiZWZvcmUgdGhpcyB0ZXh0KTogY29tcGxldGlvbi5SZXN0YXJ0U2hlbGxEYXRhLCBhbmQKIyBfdF9yb2xlLCB0aGUgcm9sZSdzIGluZGV4LiBDb3VudGVkIHJlc3RhcnRzIGFuZCBldmVyeSBydW4ncyBzdGFydC9lbmQKIyAobWlsbGlzZWNvbmRzKSBhbmQgZXhpdCBjb2RlIGFyZSBrZXB0IGluIHRoZSB0YXNrIGRpcmVjdG9yeS4KCl9rX3N0b3A9MApfa19jaGlsZD0KIyBBIHN0b3AgKE5vbWFkJ3Mga2lsbF9zaWduYWwpIGlzIHBhc3NlZCBvbiBhcyBTSUdURVJNLCBhcyB0aGUga3ViZWxldAojIHN0b3BzIGEgY29udGFpbmVyOyB0aGUgY29tbWFuZCBpcyBuZXZlciByZXN0YXJ0ZWQgYWZ0ZXIgaXQuIFRoZSBjb21tYW5kCiMgcnVucyBpbiBpdHMgb3duIHByb2Nlc3MgZ3JvdXAgKHNldHNpZDogZGFzaCBoYXMgbm8gam9iIGNvbnRyb2wgd2l0aG91dCBhCiMgdGVybWluYWwpIGFuZCB0aGUgd2hvbGUgZ3JvdXAgZ2V0cyB0aGUgc2lnbmFsOiBOb21hZCBzaWduYWxzIG9ubHkgdGhpcwojIHNoZWxsLCBhbmQgYSBzaGVsbCBiZXR3ZWVuIGl0IGFuZCB0aGUgdXNlcidzIHByb2Nlc3MgKHNoIC1jICIuLi4iKSB3b3VsZAojIGRpZSBvZiBTSUdURVJNIGF0IG9uY2UsIGFmdGVyIHdoaWNoIE5vbWFkIGtpbGxzIHdoYXQgaXMgbGVmdCwgdGhlIHVzZXIncwojIHByb2Nlc3MgaW4gaXRzIGNoZWNrcG9pbnQgKGZvdW5kIGJ5IHRoZSBmYXVsdCBzdWl0ZSwgaW50ZWdyYXRpb24vZmF1bHRzKS4KIyAoTm8gIi0tIiBiZWZvcmUgYSBuZWdhdGl2ZSBQSUQ6IGRhc2gncyBraWxsIHRha2VzIG5vbmUuKQpfa19zZXRzaWQ9CmNvbW1hbmQgLXYgc2V0c2lkID4vZGV2L251bGwgMj4mMSAmJiBfa19zZXRzaWQ9c2V0c2lkCnRyYXAgJ19rX3N0b3A9MTsgWyAtbiAiJF9rX2NoaWxkIiBdICYmIHsga2lsbCAtVEVSTSAiLSRfa19jaGlsZCIgMj4vZGV2L251bGwgfHwga2lsbCAtVEVSTSAiJF9rX2NoaWxkIiAyPi9kZXYvbnVsbDsgfTsgWyAtbiAiJHtfc19waWQ6LX0iIF0gJiYga2lsbCAiJF9zX3BpZCIgMj4vZGV2L251bGwnIFRFUk0gSU5UCl9rX2Rpcj0ke05PTUFEX1RBU0tfRElSOi0ufQpfa19pPSR7Tk9NQURfQUxMT0NfSU5ERVg6LTB9Cl9rX3N0cmVhaz0wCl9rX3JjPTAKd2hpbGUgOjsgZG8KCV9rX3QwPSQoanNfbm93X21zKQoJJF9rX3NldHNpZCAiJEAiICYKCV9rX2NoaWxkPSQhCgl3YWl0ICIkX2tfY2hpbGQiCglfa19yYz0kPwoJIyBhIHRyYXBwZWQgc2lnbmFsIGVuZHMgd2FpdCBlYXJseTogd2FpdCBhZ2FpbiBmb3IgdGhlIGNvbW1hbmQncyBvd24gZW5kCgl3aGlsZSBraWxsIC0wICIkX2tfY2hpbGQiIDI+L2Rldi9udWxsOyBkbwoJCXdhaXQgIiRfa19jaGlsZCIKCQlfa19yYz0kPwoJZG9uZQoJaWYgWyAiJF9rX3N0b3AiID0gMSBdOyB0aGVuCgkJIyB0aGUgcmVzdCBvZiB0aGUgZ3JvdXAgZmluaXNoZXMgaXRzIGNoZWNrcG9pbnQgKE5vbWFkJ3MKCQkjIGtpbGxfdGltZW91dCBib3VuZHMgdGhlIHdhaXQ6IHRoZW4gaXQga2lsbHMgZXZlcnkgcHJvY2VzcykKCQl3aGlsZSBraWxsIC0wICItJF9rX2NoaWxkIiAyPi9kZXYvbnVsbDsgZG8gc2xlZXAgMC4xOyBkb25lCglmaQoJX2tfY2hpbGQ9Cglfa190MT0kKGpzX25vd19tcykKCWVjaG8gIiRfa190MCAkX2tfdDEgJF9rX3JjIiA+PiIkX2tfZGlyL2pvYnNoaWZ0LXJ1bnMiCglbICIkX2tfc3RvcCIgPSAxIF0gJiYgYnJlYWsKCWpzX3Jlc3RhcnQgIiRfdF9yb2xlIiAiJF9rX3JjIiAiJF9rX2RpciIgIiRfa19pIiB8fCBicmVhawoJanNfYmFja29mZiAiJF9rX3N0cmVhayIgJCgoX2tfdDEgLSBfa190MCkpCglfa19zdHJlYWs9JF9iX3N0cmVhawoJcHJpbnRmICdqb2JzaGlmdDogdGFzayBleGl0ZWQgd2l0aCAlczsgcmVzdGFydGluZyBpdCBpbiBwbGFjZSBhZnRlciAlcyBtcyAoa3ViZWxldCBDcmFzaExvb3BCYWNrT2ZmKVxuJyAiJF9rX3JjIiAiJF9iX3dhaXQiID4mMgoJaWYgWyAiJF9iX3dhaXQiIC1ndCAwIF07IHRoZW4KCQlqc19zbGVlcF9tcyAiJF9iX3dhaXQiCgkJWyAiJF9rX3N0b3AiID0gMSBdICYmIGJyZWFrCglmaQpkb25lCmV4aXQgIiRfa19yYyIK\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0755"
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
      jobshift_role = "worker"
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
    jobshift_policy  = "{\"name\":\"x y/z\",\"format\":\"pai-v1\",\"completion\":{\"kind\":\"pai\",\"pos\":{}},\"retry\":{\"jobRetryCount\":0,\"gangAllocation\":false,\"pos\":{}},\"roles\":[{\"name\":\"ps\",\"group\":\"ps\",\"instances\":2,\"minFailed\":1,\"minSucceeded\":-1},{\"name\":\"worker\",\"group\":\"worker\",\"instances\":2,\"minFailed\":1,\"minSucceeded\":null}]}"
    jobshift_source  = "job.json"
    jobshift_user    = "alice"
    jobshift_version = "0.1.0-dev"
  }
}
