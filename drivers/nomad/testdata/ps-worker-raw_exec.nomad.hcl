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
        args    = ["$${NOMAD_TASK_DIR}/jobshift-restart.sh", "bash", "-c", "eval \"$1\" || exit $?", "_", "python3 mesh.py --ps_hosts=$PAI_TASK_ROLE_ps_HOST_LIST"]
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
        destination = "local/jobshift-restart.sh"
        data        = "{{ base64Decode \"X3Rfa2luZD1wYWkKX3RfZ2FuZz0wCl90X2JsPS0xCl90X2NsYXNzZXM9dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXR1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXR1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXR1dXB1cHV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dQpfdF9ib19pbml0PTEwMDAwIF90X2JvX21heD0zMDAwMDAKX3RfdHJldHJ5XzA9MApfdF90cmV0cnlfMT0wCl90X3JvbGU9MAojIEluLXBsYWNlIHRhc2sgcmVzdGFydHMgKHRyYW5zbGF0ZS9jb21wbGV0aW9uLlRhc2tSZXN0YXJ0RGVjaXNpb24pIGluIFBPU0lYCiMgc2gsIHJ1biBieSBlYWNoIHRhc2sncyBzdGFnZSAxIGFmdGVyIGl0cyB1c2VyIGNvbW1hbmQgZW5kZWQuIEEgdGFzayBpcwojIHJlcG9ydGVkIGVuZGVkIChpdHMgZXhpdCBjb2RlIGZpbGUgd3JpdHRlbikgb25seSBvbmNlIG5vIHJlc3RhcnQgaXMgZHVlLAojIHdoaWNoIGlzIHdoYXQgdGhlIGNvbXBsZXRpb24gcnVsZXMgZXhwZWN0LgojCiMgRGF0YSAocmVuZGVyZWQgaW50byB0aGUgdGFzayBwcm9ncmFtKTogX3Rfa2luZCBwYWl8dGZ8cHl0b3JjaHxub25lOwojIF90X2dhbmcgKFBBSSBnYW5nIGFsbG9jYXRpb246IG5vIHRhc2sgcmVzdGFydHMpOyBfdF90cmV0cnlfUiAoUEFJCiMgdGFza1JldHJ5Q291bnQgb2Ygcm9sZSBSKTsgX3RfcnNfUiAoS3ViZWZsb3cgcmVzdGFydCBwb2xpY3kgb2Ygcm9sZSBSIGFzCiMgMjU2IGNoYXJhY3RlcnM6IHRoZSAoY29kZSsxKXRoIGlzIDEgd2hlbiBleGl0IGNvZGUgY29kZSByZXN0YXJ0cyk7IF90X2JsCiMgKEt1YmVmbG93IGJhY2tvZmZMaW1pdCwgLTEgPSBub25lKTsgX3RfY2xhc3NlcyAoT3BlblBBSSBjbGFzcyBvZiBlYWNoIHJhdwojIGV4aXQgY29kZSAwLi4yNTU6IHQgdHJhbnNpZW50LCBwIHBlcm1hbmVudCwgdSB1bmtub3duKS4KIwojIF90X2JvX2luaXQsIF90X2JvX21heDogdGhlIHJlc3RhcnQgYmFjay1vZmYgaW4gbWlsbGlzZWNvbmRzCiMgKGNvbXBsZXRpb24uQmFja29mZiwgdGhlIGt1YmVsZXQncyBDcmFzaExvb3BCYWNrT2ZmOiAxMDAwMCAzMDAwMDApLgojCiMganNfcmVzdGFydCBSIENPREUgRElSIEk6IDAgPSByZXN0YXJ0IHRoZSB0YXNrLiBDb3VudGVkIHJlc3RhcnRzIGFyZSBrZXB0CiMgaW4gRElSOiBwZXIgdGFzayBmb3IgUEFJIChyZXN0YXJ0cy5SLkkpLCBqb2Itd2lkZSBmb3IgS3ViZWZsb3cKIyAocmVzdGFydHMuam9iLCB3aG9zZSBiYWNrb2ZmTGltaXQgY291bnRzIGV2ZXJ5IHRhc2sncyByZXN0YXJ0cykuCgpqc19jb3VudGVyX2FkZCgpIHsKCSMgbWtkaXIgaXMgYXRvbWljIG9uIHNoYXJlZCBmaWxlIHN5c3RlbXM6IGEgbG9jayBhcm91bmQgcmVhZCt3cml0ZQoJX2xfbj0wCgl1bnRpbCBta2RpciAiJDEubG9jayIgMj4vZGV2L251bGw7IGRvCgkJc2xlZXAgMC4wNQoJCV9sX249JCgoX2xfbiArIDEpKQoJCVsgIiRfbF9uIiAtZ3QgMjAwIF0gJiYgcm1kaXIgIiQxLmxvY2siIDI+L2Rldi9udWxsCglkb25lCglfbF92PSQoY2F0ICIkMSIgMj4vZGV2L251bGwgfHwgZWNobyAwKQoJZWNobyAkKChfbF92ICsgMSkpID4iJDEiCglybWRpciAiJDEubG9jayIKfQoKanNfcmVzdGFydCgpIHsKCWNhc2UgJF90X2tpbmQgaW4KCXBhaSkKCQlbICIkX3RfZ2FuZyIgPSAxIF0gJiYgcmV0dXJuIDEKCQlbICIkMiIgPSAwIF0gJiYgcmV0dXJuIDEKCQlfcl9jbHM9dQoJCWlmIFsgIiQyIiAtZ2UgMCBdICYmIFsgIiQyIiAtbGUgMjU1IF07IHRoZW4KCQkJX3JfY2xzPSQocHJpbnRmICclcycgIiRfdF9jbGFzc2VzIiB8IGN1dCAtYyIkKCgkMiArIDEpKSIpCgkJZmkKCQljYXNlICRfcl9jbHMgaW4KCQl0KSByZXR1cm4gMCA7OwoJCXApIHJldHVybiAxIDs7CgkJZXNhYwoJCWV2YWwgIl9yX21heD1cJF90X3RyZXRyeV8kMSIKCQlfcl9mPSQzL3Jlc3RhcnRzLiQxLiQ0CgkJX3Jfc289JChjYXQgIiRfcl9mIiAyPi9kZXYvbnVsbCB8fCBlY2hvIDApCgkJaWYgWyAiJF9yX21heCIgPSAtMSBdIHx8IFsgIiRfcl9zbyIgLWx0ICIkX3JfbWF4IiBdOyB0aGVuCgkJCWpzX2NvdW50ZXJfYWRkICIkX3JfZiIKCQkJcmV0dXJuIDAKCQlmaQoJCXJldHVybiAxCgkJOzsKCXRmIHwgcHl0b3JjaCkKCQlbICIkMiIgLWdlIDAgXSAmJiBbICIkMiIgLWxlIDI1NSBdIHx8IHJldHVybiAxCgkJZXZhbCAiX3JfcnM9XCRfdF9yc18kMSIKCQlbICIkKHByaW50ZiAnJXMnICIkX3JfcnMiIHwgY3V0IC1jIiQoKCQyICsgMSkpIikiID0gMSBdIHx8IHJldHVybiAxCgkJX3JfZj0kMy9yZXN0YXJ0cy5qb2IKCQlpZiBbICIkX3RfYmwiIC1nZSAwIF07IHRoZW4KCQkJX3Jfc289JChjYXQgIiRfcl9mIiAyPi9kZXYvbnVsbCB8fCBlY2hvIDApCgkJCVsgJCgoX3Jfc28gKyAxKSkgLWdlICIkX3RfYmwiIF0gJiYgcmV0dXJuIDEKCQlmaQoJCWpzX2NvdW50ZXJfYWRkICIkX3JfZiIKCQlyZXR1cm4gMAoJCTs7Cgllc2FjCglyZXR1cm4gMQp9CgojIGpzX2JhY2tvZmYgU1RSRUFLIFJBTl9NUyBzZXRzIF9iX3dhaXQgKG1pbGxpc2Vjb25kcyB0byB3YWl0IGJlZm9yZSB0aGUKIyByZXN0YXJ0KSBhbmQgX2Jfc3RyZWFrLCBhcyBjb21wbGV0aW9uLkJhY2tvZmYuTmV4dDogdGhlIGZpcnN0IHJlc3RhcnQgb2YgYQojIHN0cmVhayBhdCBvbmNlOyB0aGVuIF90X2JvX2luaXQsIGRvdWJsaW5nLCBjYXBwZWQgYXQgX3RfYm9fbWF4OyBhIHJ1biBvZgojIG1vcmUgdGhhbiAyIHggX3RfYm9fbWF4IHNpbmNlIGl0cyBzdGFydCBiZWdpbnMgYSBuZXcgc3RyZWFrLgpqc19iYWNrb2ZmKCkgewoJaWYgWyAiJDEiIC1sZSAwIF0gfHwgWyAiJDIiIC1ndCAkKCgyICogX3RfYm9fbWF4KSkgXTsgdGhlbgoJCV9iX3dhaXQ9MAoJCV9iX3N0cmVhaz0xCgkJcmV0dXJuCglmaQoJX2Jfd2FpdD0kX3RfYm9faW5pdAoJX2Jfbj0xCgl3aGlsZSBbICIkX2JfbiIgLWx0ICIkMSIgXSAmJiBbICIkX2Jfd2FpdCIgLWx0ICIkX3RfYm9fbWF4IiBdOyBkbwoJCV9iX3dhaXQ9JCgoX2Jfd2FpdCAqIDIpKQoJCV9iX249JCgoX2JfbiArIDEpKQoJZG9uZQoJWyAiJF9iX3dhaXQiIC1ndCAiJF90X2JvX21heCIgXSAmJiBfYl93YWl0PSRfdF9ib19tYXgKCV9iX3N0cmVhaz0kKCgkMSArIDEpKQp9CgojIGpzX25vd19tczogbWlsbGlzZWNvbmRzIHNpbmNlIHRoZSBlcG9jaDsgd2hvbGUgc2Vjb25kcyB3aGVyZSBkYXRlIGhhcyBubwojICVOIChzb21lIGltYWdlcycgZGF0ZSBwcmludHMgaXQgbGl0ZXJhbGx5KS4KanNfbm93X21zKCkgewoJX25fbnM9JChkYXRlICslcyVOKQoJY2FzZSAkX25fbnMgaW4KCScnIHwgKlshMC05XSopIGVjaG8gJCgoJChkYXRlICslcykgKiAxMDAwKSkgOzsKCSopIGVjaG8gJCgoX25fbnMgLyAxMDAwMDAwKSkgOzsKCWVzYWMKfQoKIyBqc19zbGVlcF9tcyBNUzogc2xlZXAgaW4gdGhlIGJhY2tncm91bmQgYW5kIHdhaXQgZm9yIGl0LCBzbyBhIHN0b3AgKHRoZQojIGNhbGxlcidzIHRyYXAgc2V0cyBfa19zdG9wPTEgYW5kIGtpbGxzICRfc19waWQpIGVuZHMgdGhlIHdhaXQgYXQgb25jZS4gQQojIHNsZWVwIHdpdGhvdXQgZnJhY3Rpb25zIHNsZWVwcyB3aG9sZSBzZWNvbmRzIHJvdW5kZWQgdXAgKG5ldmVyIHNob3J0ZXIKIyB0aGFuIHRoZSBiYWNrLW9mZikuIFRoZSBzbGVlcCBpcyBhIGRpcmVjdCBjaGlsZCwgc28ga2lsbGluZyBpdCBlbmRzIGl0LgojIEl0IGlzIGtpbGxlZCB3aXRoIFNJR0tJTEwsIG5ldmVyIFNJR1RFUk06IHVudGlsIHRoZSBmb3JrZWQgY2hpbGQgaGFzCiMgZXhlYydkIHNsZWVwIGl0IGlzIHN0aWxsIGEgY29weSBvZiB0aGlzIHNoZWxsIHdpdGggdGhlIGNhbGxlcidzIFRFUk0KIyB0cmFwIGhhbmRsZXIsIHdoaWNoIG9ubHkgcmVjb3JkcyBhIFRFUk0gKHRoZSB0cmFwIGlzIHJlc2V0IGJlZm9yZSBleGVjKSwKIyBzbyBhIHN0b3AgdGhhdCBjYW1lIGp1c3QgYmVmb3JlIG9yIGFmdGVyIHRoZSBmb3JrIGxvc3QgaXRzIGtpbGwgYW5kIHRoZQojIGxvb3Agc2xlcHQgb3V0IHRoZSB3aG9sZSBiYWNrLW9mZiAoVGVzdFJlc3RhcnRMb29wU3RvcER1cmluZ0JhY2tvZmYsIDEKIyBydW4gaW4gMTAgdW5kZXIgbG9hZDogdGhlIHRyYXAgcmFuLCB0aGUgMSBoIHNsZWVwIGxpdmVkIG9uKS4KanNfc2xlZXBfbXMoKSB7CglbICIke19rX3N0b3A6LTB9IiA9IDEgXSAmJiByZXR1cm4gMAoJaWYgWyAteiAiJHtfc19mcmFjOi19IiBdOyB0aGVuCgkJX3NfZnJhYz0wCgkJc2xlZXAgMC4wMDEgMj4vZGV2L251bGwgJiYgX3NfZnJhYz0xCglmaQoJaWYgWyAiJF9zX2ZyYWMiID0gMSBdOyB0aGVuCgkJc2xlZXAgIiQoKCQxIC8gMTAwMCkpLiQocHJpbnRmICclMDNkJyAkKCgkMSAlIDEwMDApKSkiICYKCWVsc2UKCQlzbGVlcCAkKCgoJDEgKyA5OTkpIC8gMTAwMCkpICYKCWZpCglfc19waWQ9JCEKCSMgYSBzdG9wIHRoYXQgY2FtZSBiZWZvcmUgJF9zX3BpZCB3YXMga25vd24KCVsgIiR7X2tfc3RvcDotMH0iID0gMSBdICYmIGtpbGwgLUtJTEwgIiRfc19waWQiIDI+L2Rldi9udWxsCgl3YWl0ICIkX3NfcGlkIgoJa2lsbCAtS0lMTCAiJF9zX3BpZCIgMj4vZGV2L251bGwKCXdhaXQgIiRfc19waWQiIDI+L2Rldi9udWxsCglfc19waWQ9CglyZXR1cm4gMAp9CiMgSW4tcGxhY2UgdGFzayByZXN0YXJ0cyBvbiBOb21hZCAoam9ic2hpZnQpOiBydW5zIHRoZSB0YXNrJ3MgY29tbWFuZCAoIiRAIikKIyBhbmQsIHdoZW4gaXQgZW5kcywgcmVzdGFydHMgaXQgaW4gcGxhY2UgYXMgaXRzIHNvdXJjZSBwbGF0Zm9ybSB3b3VsZAojIChqc19yZXN0YXJ0ID0gY29tcGxldGlvbi5UYXNrUmVzdGFydERlY2lzaW9uKSBhZnRlciB0aGUga3ViZWxldCdzCiMgYmFjay1vZmYgKGpzX2JhY2tvZmYgPSBjb21wbGV0aW9uLkJhY2tvZmYpLiBOb21hZCdzIG93biByZXN0YXJ0IGJsb2NrIGhhcwojIG9ubHkgYSBjb25zdGFudCBkZWxheSwgYW5kIGl0cyBleHBvbmVudGlhbCBkZWxheV9mdW5jdGlvbiBpcyBmb3IKIyByZXNjaGVkdWxpbmcgKGEgbmV3IGFsbG9jYXRpb24sIG5ldyBwb3J0cyksIHNvIHRoZSBsb29wIGxpdmVzIGluIHRoZSB0YXNrLgojCiMgRGF0YSAocmVuZGVyZWQgYmVmb3JlIHRoaXMgdGV4dCk6IGNvbXBsZXRpb24uUmVzdGFydFNoZWxsRGF0YSwgYW5kCiMgX3Rfcm9sZSwgdGhlIHJvbGUncyBpbmRleC4gQ291bnRlZCByZXN0YXJ0cyBhbmQgZXZlcnkgcnVuJ3Mgc3RhcnQvZW5kCiMgKG1pbGxpc2Vjb25kcykgYW5kIGV4aXQgY29kZSBhcmUga2VwdCBpbiB0aGUgdGFzayBkaXJlY3RvcnkuCgpfa19zdG9wPTAKX2tfY2hpbGQ9CiMgQSBzdG9wIChOb21hZCdzIGtpbGxfc2lnbmFsKSBpcyBwYXNzZWQgb24gYXMgU0lHVEVSTSwgYXMgdGhlIGt1YmVsZXQKIyBzdG9wcyBhIGNvbnRhaW5lcjsgdGhlIGNvbW1hbmQgaXMgbmV2ZXIgcmVzdGFydGVkIGFmdGVyIGl0LiBUaGUgY29tbWFuZAojIHJ1bnMgaW4gaXRzIG93biBwcm9jZXNzIGdyb3VwIChzZXRzaWQ6IGRhc2ggaGFzIG5vIGpvYiBjb250cm9sIHdpdGhvdXQgYQojIHRlcm1pbmFsKSBhbmQgdGhlIHdob2xlIGdyb3VwIGdldHMgdGhlIHNpZ25hbDogTm9tYWQgc2lnbmFscyBvbmx5IHRoaXMKIyBzaGVsbCwgYW5kIGEgc2hlbGwgYmV0d2VlbiBpdCBhbmQgdGhlIHVzZXIncyBwcm9jZXNzIChzaCAtYyAiLi4uIikgd291bGQKIyBkaWUgb2YgU0lHVEVSTSBhdCBvbmNlLCBhZnRlciB3aGljaCBOb21hZCBraWxscyB3aGF0IGlzIGxlZnQsIHRoZSB1c2VyJ3MKIyBwcm9jZXNzIGluIGl0cyBjaGVja3BvaW50IChmb3VuZCBieSB0aGUgZmF1bHQgc3VpdGUsIGludGVncmF0aW9uL2ZhdWx0cykuCiMgKE5vICItLSIgYmVmb3JlIGEgbmVnYXRpdmUgUElEOiBkYXNoJ3Mga2lsbCB0YWtlcyBub25lLikKX2tfc2V0c2lkPQpjb21tYW5kIC12IHNldHNpZCA+L2Rldi9udWxsIDI+JjEgJiYgX2tfc2V0c2lkPXNldHNpZAp0cmFwICdfa19zdG9wPTE7IFsgLW4gIiRfa19jaGlsZCIgXSAmJiB7IGtpbGwgLVRFUk0gIi0kX2tfY2hpbGQiIDI+L2Rldi9udWxsIHx8IGtpbGwgLVRFUk0gIiRfa19jaGlsZCIgMj4vZGV2L251bGw7IH07IFsgLW4gIiR7X3NfcGlkOi19IiBdICYmIGtpbGwgLUtJTEwgIiRfc19waWQiIDI+L2Rldi9udWxsJyBURVJNIElOVApfa19kaXI9JHtOT01BRF9UQVNLX0RJUjotLn0KX2tfaT0ke05PTUFEX0FMTE9DX0lOREVYOi0wfQpfa19zdHJlYWs9MApfa19yYz0wCndoaWxlIDo7IGRvCglfa190MD0kKGpzX25vd19tcykKCSRfa19zZXRzaWQgIiRAIiAmCglfa19jaGlsZD0kIQoJd2FpdCAiJF9rX2NoaWxkIgoJX2tfcmM9JD8KCSMgYSB0cmFwcGVkIHNpZ25hbCBlbmRzIHdhaXQgZWFybHk6IHdhaXQgYWdhaW4gZm9yIHRoZSBjb21tYW5kJ3Mgb3duIGVuZAoJd2hpbGUga2lsbCAtMCAiJF9rX2NoaWxkIiAyPi9kZXYvbnVsbDsgZG8KCQl3YWl0ICIkX2tfY2hpbGQiCgkJX2tfcmM9JD8KCWRvbmUKCWlmIFsgIiRfa19zdG9wIiA9IDEgXTsgdGhlbgoJCSMgdGhlIHJlc3Qgb2YgdGhlIGdyb3VwIGZpbmlzaGVzIGl0cyBjaGVja3BvaW50IChOb21hZCdzCgkJIyBraWxsX3RpbWVvdXQgYm91bmRzIHRoZSB3YWl0OiB0aGVuIGl0IGtpbGxzIGV2ZXJ5IHByb2Nlc3MpCgkJd2hpbGUga2lsbCAtMCAiLSRfa19jaGlsZCIgMj4vZGV2L251bGw7IGRvIHNsZWVwIDAuMTsgZG9uZQoJZmkKCV9rX2NoaWxkPQoJX2tfdDE9JChqc19ub3dfbXMpCgllY2hvICIkX2tfdDAgJF9rX3QxICRfa19yYyIgPj4iJF9rX2Rpci9qb2JzaGlmdC1ydW5zIgoJWyAiJF9rX3N0b3AiID0gMSBdICYmIGJyZWFrCglqc19yZXN0YXJ0ICIkX3Rfcm9sZSIgIiRfa19yYyIgIiRfa19kaXIiICIkX2tfaSIgfHwgYnJlYWsKCWpzX2JhY2tvZmYgIiRfa19zdHJlYWsiICQoKF9rX3QxIC0gX2tfdDApKQoJX2tfc3RyZWFrPSRfYl9zdHJlYWsKCXByaW50ZiAnam9ic2hpZnQ6IHRhc2sgZXhpdGVkIHdpdGggJXM7IHJlc3RhcnRpbmcgaXQgaW4gcGxhY2UgYWZ0ZXIgJXMgbXMgKGt1YmVsZXQgQ3Jhc2hMb29wQmFja09mZilcbicgIiRfa19yYyIgIiRfYl93YWl0IiA+JjIKCWlmIFsgIiRfYl93YWl0IiAtZ3QgMCBdOyB0aGVuCgkJanNfc2xlZXBfbXMgIiRfYl93YWl0IgoJCVsgIiRfa19zdG9wIiA9IDEgXSAmJiBicmVhawoJZmkKZG9uZQpleGl0ICIkX2tfcmMiCg==\" }}"
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
        args    = ["$${NOMAD_TASK_DIR}/jobshift-restart.sh", "bash", "-c", "eval \"$1\" || exit $?", "_", "python3 mesh.py --ps_hosts=$PAI_TASK_ROLE_ps_HOST_LIST"]
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
        destination = "local/jobshift-restart.sh"
        data        = "{{ base64Decode \"X3Rfa2luZD1wYWkKX3RfZ2FuZz0wCl90X2JsPS0xCl90X2NsYXNzZXM9dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXR1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXR1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXR1dXB1cHV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dQpfdF9ib19pbml0PTEwMDAwIF90X2JvX21heD0zMDAwMDAKX3RfdHJldHJ5XzA9MApfdF90cmV0cnlfMT0wCl90X3JvbGU9MQojIEluLXBsYWNlIHRhc2sgcmVzdGFydHMgKHRyYW5zbGF0ZS9jb21wbGV0aW9uLlRhc2tSZXN0YXJ0RGVjaXNpb24pIGluIFBPU0lYCiMgc2gsIHJ1biBieSBlYWNoIHRhc2sncyBzdGFnZSAxIGFmdGVyIGl0cyB1c2VyIGNvbW1hbmQgZW5kZWQuIEEgdGFzayBpcwojIHJlcG9ydGVkIGVuZGVkIChpdHMgZXhpdCBjb2RlIGZpbGUgd3JpdHRlbikgb25seSBvbmNlIG5vIHJlc3RhcnQgaXMgZHVlLAojIHdoaWNoIGlzIHdoYXQgdGhlIGNvbXBsZXRpb24gcnVsZXMgZXhwZWN0LgojCiMgRGF0YSAocmVuZGVyZWQgaW50byB0aGUgdGFzayBwcm9ncmFtKTogX3Rfa2luZCBwYWl8dGZ8cHl0b3JjaHxub25lOwojIF90X2dhbmcgKFBBSSBnYW5nIGFsbG9jYXRpb246IG5vIHRhc2sgcmVzdGFydHMpOyBfdF90cmV0cnlfUiAoUEFJCiMgdGFza1JldHJ5Q291bnQgb2Ygcm9sZSBSKTsgX3RfcnNfUiAoS3ViZWZsb3cgcmVzdGFydCBwb2xpY3kgb2Ygcm9sZSBSIGFzCiMgMjU2IGNoYXJhY3RlcnM6IHRoZSAoY29kZSsxKXRoIGlzIDEgd2hlbiBleGl0IGNvZGUgY29kZSByZXN0YXJ0cyk7IF90X2JsCiMgKEt1YmVmbG93IGJhY2tvZmZMaW1pdCwgLTEgPSBub25lKTsgX3RfY2xhc3NlcyAoT3BlblBBSSBjbGFzcyBvZiBlYWNoIHJhdwojIGV4aXQgY29kZSAwLi4yNTU6IHQgdHJhbnNpZW50LCBwIHBlcm1hbmVudCwgdSB1bmtub3duKS4KIwojIF90X2JvX2luaXQsIF90X2JvX21heDogdGhlIHJlc3RhcnQgYmFjay1vZmYgaW4gbWlsbGlzZWNvbmRzCiMgKGNvbXBsZXRpb24uQmFja29mZiwgdGhlIGt1YmVsZXQncyBDcmFzaExvb3BCYWNrT2ZmOiAxMDAwMCAzMDAwMDApLgojCiMganNfcmVzdGFydCBSIENPREUgRElSIEk6IDAgPSByZXN0YXJ0IHRoZSB0YXNrLiBDb3VudGVkIHJlc3RhcnRzIGFyZSBrZXB0CiMgaW4gRElSOiBwZXIgdGFzayBmb3IgUEFJIChyZXN0YXJ0cy5SLkkpLCBqb2Itd2lkZSBmb3IgS3ViZWZsb3cKIyAocmVzdGFydHMuam9iLCB3aG9zZSBiYWNrb2ZmTGltaXQgY291bnRzIGV2ZXJ5IHRhc2sncyByZXN0YXJ0cykuCgpqc19jb3VudGVyX2FkZCgpIHsKCSMgbWtkaXIgaXMgYXRvbWljIG9uIHNoYXJlZCBmaWxlIHN5c3RlbXM6IGEgbG9jayBhcm91bmQgcmVhZCt3cml0ZQoJX2xfbj0wCgl1bnRpbCBta2RpciAiJDEubG9jayIgMj4vZGV2L251bGw7IGRvCgkJc2xlZXAgMC4wNQoJCV9sX249JCgoX2xfbiArIDEpKQoJCVsgIiRfbF9uIiAtZ3QgMjAwIF0gJiYgcm1kaXIgIiQxLmxvY2siIDI+L2Rldi9udWxsCglkb25lCglfbF92PSQoY2F0ICIkMSIgMj4vZGV2L251bGwgfHwgZWNobyAwKQoJZWNobyAkKChfbF92ICsgMSkpID4iJDEiCglybWRpciAiJDEubG9jayIKfQoKanNfcmVzdGFydCgpIHsKCWNhc2UgJF90X2tpbmQgaW4KCXBhaSkKCQlbICIkX3RfZ2FuZyIgPSAxIF0gJiYgcmV0dXJuIDEKCQlbICIkMiIgPSAwIF0gJiYgcmV0dXJuIDEKCQlfcl9jbHM9dQoJCWlmIFsgIiQyIiAtZ2UgMCBdICYmIFsgIiQyIiAtbGUgMjU1IF07IHRoZW4KCQkJX3JfY2xzPSQocHJpbnRmICclcycgIiRfdF9jbGFzc2VzIiB8IGN1dCAtYyIkKCgkMiArIDEpKSIpCgkJZmkKCQljYXNlICRfcl9jbHMgaW4KCQl0KSByZXR1cm4gMCA7OwoJCXApIHJldHVybiAxIDs7CgkJZXNhYwoJCWV2YWwgIl9yX21heD1cJF90X3RyZXRyeV8kMSIKCQlfcl9mPSQzL3Jlc3RhcnRzLiQxLiQ0CgkJX3Jfc289JChjYXQgIiRfcl9mIiAyPi9kZXYvbnVsbCB8fCBlY2hvIDApCgkJaWYgWyAiJF9yX21heCIgPSAtMSBdIHx8IFsgIiRfcl9zbyIgLWx0ICIkX3JfbWF4IiBdOyB0aGVuCgkJCWpzX2NvdW50ZXJfYWRkICIkX3JfZiIKCQkJcmV0dXJuIDAKCQlmaQoJCXJldHVybiAxCgkJOzsKCXRmIHwgcHl0b3JjaCkKCQlbICIkMiIgLWdlIDAgXSAmJiBbICIkMiIgLWxlIDI1NSBdIHx8IHJldHVybiAxCgkJZXZhbCAiX3JfcnM9XCRfdF9yc18kMSIKCQlbICIkKHByaW50ZiAnJXMnICIkX3JfcnMiIHwgY3V0IC1jIiQoKCQyICsgMSkpIikiID0gMSBdIHx8IHJldHVybiAxCgkJX3JfZj0kMy9yZXN0YXJ0cy5qb2IKCQlpZiBbICIkX3RfYmwiIC1nZSAwIF07IHRoZW4KCQkJX3Jfc289JChjYXQgIiRfcl9mIiAyPi9kZXYvbnVsbCB8fCBlY2hvIDApCgkJCVsgJCgoX3Jfc28gKyAxKSkgLWdlICIkX3RfYmwiIF0gJiYgcmV0dXJuIDEKCQlmaQoJCWpzX2NvdW50ZXJfYWRkICIkX3JfZiIKCQlyZXR1cm4gMAoJCTs7Cgllc2FjCglyZXR1cm4gMQp9CgojIGpzX2JhY2tvZmYgU1RSRUFLIFJBTl9NUyBzZXRzIF9iX3dhaXQgKG1pbGxpc2Vjb25kcyB0byB3YWl0IGJlZm9yZSB0aGUKIyByZXN0YXJ0KSBhbmQgX2Jfc3RyZWFrLCBhcyBjb21wbGV0aW9uLkJhY2tvZmYuTmV4dDogdGhlIGZpcnN0IHJlc3RhcnQgb2YgYQojIHN0cmVhayBhdCBvbmNlOyB0aGVuIF90X2JvX2luaXQsIGRvdWJsaW5nLCBjYXBwZWQgYXQgX3RfYm9fbWF4OyBhIHJ1biBvZgojIG1vcmUgdGhhbiAyIHggX3RfYm9fbWF4IHNpbmNlIGl0cyBzdGFydCBiZWdpbnMgYSBuZXcgc3RyZWFrLgpqc19iYWNrb2ZmKCkgewoJaWYgWyAiJDEiIC1sZSAwIF0gfHwgWyAiJDIiIC1ndCAkKCgyICogX3RfYm9fbWF4KSkgXTsgdGhlbgoJCV9iX3dhaXQ9MAoJCV9iX3N0cmVhaz0xCgkJcmV0dXJuCglmaQoJX2Jfd2FpdD0kX3RfYm9faW5pdAoJX2Jfbj0xCgl3aGlsZSBbICIkX2JfbiIgLWx0ICIkMSIgXSAmJiBbICIkX2Jfd2FpdCIgLWx0ICIkX3RfYm9fbWF4IiBdOyBkbwoJCV9iX3dhaXQ9JCgoX2Jfd2FpdCAqIDIpKQoJCV9iX249JCgoX2JfbiArIDEpKQoJZG9uZQoJWyAiJF9iX3dhaXQiIC1ndCAiJF90X2JvX21heCIgXSAmJiBfYl93YWl0PSRfdF9ib19tYXgKCV9iX3N0cmVhaz0kKCgkMSArIDEpKQp9CgojIGpzX25vd19tczogbWlsbGlzZWNvbmRzIHNpbmNlIHRoZSBlcG9jaDsgd2hvbGUgc2Vjb25kcyB3aGVyZSBkYXRlIGhhcyBubwojICVOIChzb21lIGltYWdlcycgZGF0ZSBwcmludHMgaXQgbGl0ZXJhbGx5KS4KanNfbm93X21zKCkgewoJX25fbnM9JChkYXRlICslcyVOKQoJY2FzZSAkX25fbnMgaW4KCScnIHwgKlshMC05XSopIGVjaG8gJCgoJChkYXRlICslcykgKiAxMDAwKSkgOzsKCSopIGVjaG8gJCgoX25fbnMgLyAxMDAwMDAwKSkgOzsKCWVzYWMKfQoKIyBqc19zbGVlcF9tcyBNUzogc2xlZXAgaW4gdGhlIGJhY2tncm91bmQgYW5kIHdhaXQgZm9yIGl0LCBzbyBhIHN0b3AgKHRoZQojIGNhbGxlcidzIHRyYXAgc2V0cyBfa19zdG9wPTEgYW5kIGtpbGxzICRfc19waWQpIGVuZHMgdGhlIHdhaXQgYXQgb25jZS4gQQojIHNsZWVwIHdpdGhvdXQgZnJhY3Rpb25zIHNsZWVwcyB3aG9sZSBzZWNvbmRzIHJvdW5kZWQgdXAgKG5ldmVyIHNob3J0ZXIKIyB0aGFuIHRoZSBiYWNrLW9mZikuIFRoZSBzbGVlcCBpcyBhIGRpcmVjdCBjaGlsZCwgc28ga2lsbGluZyBpdCBlbmRzIGl0LgojIEl0IGlzIGtpbGxlZCB3aXRoIFNJR0tJTEwsIG5ldmVyIFNJR1RFUk06IHVudGlsIHRoZSBmb3JrZWQgY2hpbGQgaGFzCiMgZXhlYydkIHNsZWVwIGl0IGlzIHN0aWxsIGEgY29weSBvZiB0aGlzIHNoZWxsIHdpdGggdGhlIGNhbGxlcidzIFRFUk0KIyB0cmFwIGhhbmRsZXIsIHdoaWNoIG9ubHkgcmVjb3JkcyBhIFRFUk0gKHRoZSB0cmFwIGlzIHJlc2V0IGJlZm9yZSBleGVjKSwKIyBzbyBhIHN0b3AgdGhhdCBjYW1lIGp1c3QgYmVmb3JlIG9yIGFmdGVyIHRoZSBmb3JrIGxvc3QgaXRzIGtpbGwgYW5kIHRoZQojIGxvb3Agc2xlcHQgb3V0IHRoZSB3aG9sZSBiYWNrLW9mZiAoVGVzdFJlc3RhcnRMb29wU3RvcER1cmluZ0JhY2tvZmYsIDEKIyBydW4gaW4gMTAgdW5kZXIgbG9hZDogdGhlIHRyYXAgcmFuLCB0aGUgMSBoIHNsZWVwIGxpdmVkIG9uKS4KanNfc2xlZXBfbXMoKSB7CglbICIke19rX3N0b3A6LTB9IiA9IDEgXSAmJiByZXR1cm4gMAoJaWYgWyAteiAiJHtfc19mcmFjOi19IiBdOyB0aGVuCgkJX3NfZnJhYz0wCgkJc2xlZXAgMC4wMDEgMj4vZGV2L251bGwgJiYgX3NfZnJhYz0xCglmaQoJaWYgWyAiJF9zX2ZyYWMiID0gMSBdOyB0aGVuCgkJc2xlZXAgIiQoKCQxIC8gMTAwMCkpLiQocHJpbnRmICclMDNkJyAkKCgkMSAlIDEwMDApKSkiICYKCWVsc2UKCQlzbGVlcCAkKCgoJDEgKyA5OTkpIC8gMTAwMCkpICYKCWZpCglfc19waWQ9JCEKCSMgYSBzdG9wIHRoYXQgY2FtZSBiZWZvcmUgJF9zX3BpZCB3YXMga25vd24KCVsgIiR7X2tfc3RvcDotMH0iID0gMSBdICYmIGtpbGwgLUtJTEwgIiRfc19waWQiIDI+L2Rldi9udWxsCgl3YWl0ICIkX3NfcGlkIgoJa2lsbCAtS0lMTCAiJF9zX3BpZCIgMj4vZGV2L251bGwKCXdhaXQgIiRfc19waWQiIDI+L2Rldi9udWxsCglfc19waWQ9CglyZXR1cm4gMAp9CiMgSW4tcGxhY2UgdGFzayByZXN0YXJ0cyBvbiBOb21hZCAoam9ic2hpZnQpOiBydW5zIHRoZSB0YXNrJ3MgY29tbWFuZCAoIiRAIikKIyBhbmQsIHdoZW4gaXQgZW5kcywgcmVzdGFydHMgaXQgaW4gcGxhY2UgYXMgaXRzIHNvdXJjZSBwbGF0Zm9ybSB3b3VsZAojIChqc19yZXN0YXJ0ID0gY29tcGxldGlvbi5UYXNrUmVzdGFydERlY2lzaW9uKSBhZnRlciB0aGUga3ViZWxldCdzCiMgYmFjay1vZmYgKGpzX2JhY2tvZmYgPSBjb21wbGV0aW9uLkJhY2tvZmYpLiBOb21hZCdzIG93biByZXN0YXJ0IGJsb2NrIGhhcwojIG9ubHkgYSBjb25zdGFudCBkZWxheSwgYW5kIGl0cyBleHBvbmVudGlhbCBkZWxheV9mdW5jdGlvbiBpcyBmb3IKIyByZXNjaGVkdWxpbmcgKGEgbmV3IGFsbG9jYXRpb24sIG5ldyBwb3J0cyksIHNvIHRoZSBsb29wIGxpdmVzIGluIHRoZSB0YXNrLgojCiMgRGF0YSAocmVuZGVyZWQgYmVmb3JlIHRoaXMgdGV4dCk6IGNvbXBsZXRpb24uUmVzdGFydFNoZWxsRGF0YSwgYW5kCiMgX3Rfcm9sZSwgdGhlIHJvbGUncyBpbmRleC4gQ291bnRlZCByZXN0YXJ0cyBhbmQgZXZlcnkgcnVuJ3Mgc3RhcnQvZW5kCiMgKG1pbGxpc2Vjb25kcykgYW5kIGV4aXQgY29kZSBhcmUga2VwdCBpbiB0aGUgdGFzayBkaXJlY3RvcnkuCgpfa19zdG9wPTAKX2tfY2hpbGQ9CiMgQSBzdG9wIChOb21hZCdzIGtpbGxfc2lnbmFsKSBpcyBwYXNzZWQgb24gYXMgU0lHVEVSTSwgYXMgdGhlIGt1YmVsZXQKIyBzdG9wcyBhIGNvbnRhaW5lcjsgdGhlIGNvbW1hbmQgaXMgbmV2ZXIgcmVzdGFydGVkIGFmdGVyIGl0LiBUaGUgY29tbWFuZAojIHJ1bnMgaW4gaXRzIG93biBwcm9jZXNzIGdyb3VwIChzZXRzaWQ6IGRhc2ggaGFzIG5vIGpvYiBjb250cm9sIHdpdGhvdXQgYQojIHRlcm1pbmFsKSBhbmQgdGhlIHdob2xlIGdyb3VwIGdldHMgdGhlIHNpZ25hbDogTm9tYWQgc2lnbmFscyBvbmx5IHRoaXMKIyBzaGVsbCwgYW5kIGEgc2hlbGwgYmV0d2VlbiBpdCBhbmQgdGhlIHVzZXIncyBwcm9jZXNzIChzaCAtYyAiLi4uIikgd291bGQKIyBkaWUgb2YgU0lHVEVSTSBhdCBvbmNlLCBhZnRlciB3aGljaCBOb21hZCBraWxscyB3aGF0IGlzIGxlZnQsIHRoZSB1c2VyJ3MKIyBwcm9jZXNzIGluIGl0cyBjaGVja3BvaW50IChmb3VuZCBieSB0aGUgZmF1bHQgc3VpdGUsIGludGVncmF0aW9uL2ZhdWx0cykuCiMgKE5vICItLSIgYmVmb3JlIGEgbmVnYXRpdmUgUElEOiBkYXNoJ3Mga2lsbCB0YWtlcyBub25lLikKX2tfc2V0c2lkPQpjb21tYW5kIC12IHNldHNpZCA+L2Rldi9udWxsIDI+JjEgJiYgX2tfc2V0c2lkPXNldHNpZAp0cmFwICdfa19zdG9wPTE7IFsgLW4gIiRfa19jaGlsZCIgXSAmJiB7IGtpbGwgLVRFUk0gIi0kX2tfY2hpbGQiIDI+L2Rldi9udWxsIHx8IGtpbGwgLVRFUk0gIiRfa19jaGlsZCIgMj4vZGV2L251bGw7IH07IFsgLW4gIiR7X3NfcGlkOi19IiBdICYmIGtpbGwgLUtJTEwgIiRfc19waWQiIDI+L2Rldi9udWxsJyBURVJNIElOVApfa19kaXI9JHtOT01BRF9UQVNLX0RJUjotLn0KX2tfaT0ke05PTUFEX0FMTE9DX0lOREVYOi0wfQpfa19zdHJlYWs9MApfa19yYz0wCndoaWxlIDo7IGRvCglfa190MD0kKGpzX25vd19tcykKCSRfa19zZXRzaWQgIiRAIiAmCglfa19jaGlsZD0kIQoJd2FpdCAiJF9rX2NoaWxkIgoJX2tfcmM9JD8KCSMgYSB0cmFwcGVkIHNpZ25hbCBlbmRzIHdhaXQgZWFybHk6IHdhaXQgYWdhaW4gZm9yIHRoZSBjb21tYW5kJ3Mgb3duIGVuZAoJd2hpbGUga2lsbCAtMCAiJF9rX2NoaWxkIiAyPi9kZXYvbnVsbDsgZG8KCQl3YWl0ICIkX2tfY2hpbGQiCgkJX2tfcmM9JD8KCWRvbmUKCWlmIFsgIiRfa19zdG9wIiA9IDEgXTsgdGhlbgoJCSMgdGhlIHJlc3Qgb2YgdGhlIGdyb3VwIGZpbmlzaGVzIGl0cyBjaGVja3BvaW50IChOb21hZCdzCgkJIyBraWxsX3RpbWVvdXQgYm91bmRzIHRoZSB3YWl0OiB0aGVuIGl0IGtpbGxzIGV2ZXJ5IHByb2Nlc3MpCgkJd2hpbGUga2lsbCAtMCAiLSRfa19jaGlsZCIgMj4vZGV2L251bGw7IGRvIHNsZWVwIDAuMTsgZG9uZQoJZmkKCV9rX2NoaWxkPQoJX2tfdDE9JChqc19ub3dfbXMpCgllY2hvICIkX2tfdDAgJF9rX3QxICRfa19yYyIgPj4iJF9rX2Rpci9qb2JzaGlmdC1ydW5zIgoJWyAiJF9rX3N0b3AiID0gMSBdICYmIGJyZWFrCglqc19yZXN0YXJ0ICIkX3Rfcm9sZSIgIiRfa19yYyIgIiRfa19kaXIiICIkX2tfaSIgfHwgYnJlYWsKCWpzX2JhY2tvZmYgIiRfa19zdHJlYWsiICQoKF9rX3QxIC0gX2tfdDApKQoJX2tfc3RyZWFrPSRfYl9zdHJlYWsKCXByaW50ZiAnam9ic2hpZnQ6IHRhc2sgZXhpdGVkIHdpdGggJXM7IHJlc3RhcnRpbmcgaXQgaW4gcGxhY2UgYWZ0ZXIgJXMgbXMgKGt1YmVsZXQgQ3Jhc2hMb29wQmFja09mZilcbicgIiRfa19yYyIgIiRfYl93YWl0IiA+JjIKCWlmIFsgIiRfYl93YWl0IiAtZ3QgMCBdOyB0aGVuCgkJanNfc2xlZXBfbXMgIiRfYl93YWl0IgoJCVsgIiRfa19zdG9wIiA9IDEgXSAmJiBicmVhawoJZmkKZG9uZQpleGl0ICIkX2tfcmMiCg==\" }}"
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
    jobshift_policy  = "{\"name\":\"mesh\",\"format\":\"pai-v1\",\"completion\":{\"kind\":\"pai\",\"pos\":{}},\"retry\":{\"jobRetryCount\":0,\"gangAllocation\":false,\"pos\":{}},\"roles\":[{\"name\":\"ps\",\"group\":\"ps\",\"instances\":2,\"minFailed\":1,\"minSucceeded\":-1},{\"name\":\"worker\",\"group\":\"worker\",\"instances\":2,\"minFailed\":1,\"minSucceeded\":null}]}"
    jobshift_source  = "job.json"
    jobshift_user    = "alice"
    jobshift_version = "0.1.0-dev"
  }
}
