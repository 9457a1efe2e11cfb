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
        args    = ["$${NOMAD_TASK_DIR}/jobshift-restart.sh", "bash", "-c", "set -o errexit -o nounset -o pipefail\npython3 train.py\n", "user.sh"]
        command = "/bin/sh"
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
        destination = "local/jobshift-restart.sh"
        data        = "{{ base64Decode \"X3Rfa2luZD1wYWkKX3RfZ2FuZz0wCl90X2JsPS0xCl90X2NsYXNzZXM9dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXR0cHV1cHB1dXV1cHV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dQpfdF9ib19pbml0PTEwMDAwIF90X2JvX21heD0zMDAwMDAKX3RfdHJldHJ5XzA9MApfdF9yb2xlPTAKIyBJbi1wbGFjZSB0YXNrIHJlc3RhcnRzICh0cmFuc2xhdGUvY29tcGxldGlvbi5UYXNrUmVzdGFydERlY2lzaW9uKSBpbiBQT1NJWAojIHNoLCBydW4gYnkgZWFjaCB0YXNrJ3Mgc3RhZ2UgMSBhZnRlciBpdHMgdXNlciBjb21tYW5kIGVuZGVkLiBBIHRhc2sgaXMKIyByZXBvcnRlZCBlbmRlZCAoaXRzIGV4aXQgY29kZSBmaWxlIHdyaXR0ZW4pIG9ubHkgb25jZSBubyByZXN0YXJ0IGlzIGR1ZSwKIyB3aGljaCBpcyB3aGF0IHRoZSBjb21wbGV0aW9uIHJ1bGVzIGV4cGVjdC4KIwojIERhdGEgKHJlbmRlcmVkIGludG8gdGhlIHRhc2sgcHJvZ3JhbSk6IF90X2tpbmQgcGFpfHRmfHB5dG9yY2h8bm9uZTsKIyBfdF9nYW5nIChQQUkgZ2FuZyBhbGxvY2F0aW9uOiBubyB0YXNrIHJlc3RhcnRzKTsgX3RfdHJldHJ5X1IgKFBBSQojIHRhc2tSZXRyeUNvdW50IG9mIHJvbGUgUik7IF90X3JzX1IgKEt1YmVmbG93IHJlc3RhcnQgcG9saWN5IG9mIHJvbGUgUiBhcwojIDI1NiBjaGFyYWN0ZXJzOiB0aGUgKGNvZGUrMSl0aCBpcyAxIHdoZW4gZXhpdCBjb2RlIGNvZGUgcmVzdGFydHMpOyBfdF9ibAojIChLdWJlZmxvdyBiYWNrb2ZmTGltaXQsIC0xID0gbm9uZSk7IF90X2NsYXNzZXMgKE9wZW5QQUkgY2xhc3Mgb2YgZWFjaCByYXcKIyBleGl0IGNvZGUgMC4uMjU1OiB0IHRyYW5zaWVudCwgcCBwZXJtYW5lbnQsIHUgdW5rbm93bikuCiMKIyBfdF9ib19pbml0LCBfdF9ib19tYXg6IHRoZSByZXN0YXJ0IGJhY2stb2ZmIGluIG1pbGxpc2Vjb25kcwojIChjb21wbGV0aW9uLkJhY2tvZmYsIHRoZSBrdWJlbGV0J3MgQ3Jhc2hMb29wQmFja09mZjogMTAwMDAgMzAwMDAwKS4KIwojIGpzX3Jlc3RhcnQgUiBDT0RFIERJUiBJOiAwID0gcmVzdGFydCB0aGUgdGFzay4gQ291bnRlZCByZXN0YXJ0cyBhcmUga2VwdAojIGluIERJUjogcGVyIHRhc2sgZm9yIFBBSSAocmVzdGFydHMuUi5JKSwgam9iLXdpZGUgZm9yIEt1YmVmbG93CiMgKHJlc3RhcnRzLmpvYiwgd2hvc2UgYmFja29mZkxpbWl0IGNvdW50cyBldmVyeSB0YXNrJ3MgcmVzdGFydHMpLgoKanNfY291bnRlcl9hZGQoKSB7CgkjIG1rZGlyIGlzIGF0b21pYyBvbiBzaGFyZWQgZmlsZSBzeXN0ZW1zOiBhIGxvY2sgYXJvdW5kIHJlYWQrd3JpdGUKCV9sX249MAoJdW50aWwgbWtkaXIgIiQxLmxvY2siIDI+L2Rldi9udWxsOyBkbwoJCXNsZWVwIDAuMDUKCQlfbF9uPSQoKF9sX24gKyAxKSkKCQlbICIkX2xfbiIgLWd0IDIwMCBdICYmIHJtZGlyICIkMS5sb2NrIiAyPi9kZXYvbnVsbAoJZG9uZQoJX2xfdj0kKGNhdCAiJDEiIDI+L2Rldi9udWxsIHx8IGVjaG8gMCkKCWVjaG8gJCgoX2xfdiArIDEpKSA+IiQxIgoJcm1kaXIgIiQxLmxvY2siCn0KCmpzX3Jlc3RhcnQoKSB7CgljYXNlICRfdF9raW5kIGluCglwYWkpCgkJWyAiJF90X2dhbmciID0gMSBdICYmIHJldHVybiAxCgkJWyAiJDIiID0gMCBdICYmIHJldHVybiAxCgkJX3JfY2xzPXUKCQlpZiBbICIkMiIgLWdlIDAgXSAmJiBbICIkMiIgLWxlIDI1NSBdOyB0aGVuCgkJCV9yX2Nscz0kKHByaW50ZiAnJXMnICIkX3RfY2xhc3NlcyIgfCBjdXQgLWMiJCgoJDIgKyAxKSkiKQoJCWZpCgkJY2FzZSAkX3JfY2xzIGluCgkJdCkgcmV0dXJuIDAgOzsKCQlwKSByZXR1cm4gMSA7OwoJCWVzYWMKCQlldmFsICJfcl9tYXg9XCRfdF90cmV0cnlfJDEiCgkJX3JfZj0kMy9yZXN0YXJ0cy4kMS4kNAoJCV9yX3NvPSQoY2F0ICIkX3JfZiIgMj4vZGV2L251bGwgfHwgZWNobyAwKQoJCWlmIFsgIiRfcl9tYXgiID0gLTEgXSB8fCBbICIkX3Jfc28iIC1sdCAiJF9yX21heCIgXTsgdGhlbgoJCQlqc19jb3VudGVyX2FkZCAiJF9yX2YiCgkJCXJldHVybiAwCgkJZmkKCQlyZXR1cm4gMQoJCTs7Cgl0ZiB8IHB5dG9yY2gpCgkJWyAiJDIiIC1nZSAwIF0gJiYgWyAiJDIiIC1sZSAyNTUgXSB8fCByZXR1cm4gMQoJCWV2YWwgIl9yX3JzPVwkX3RfcnNfJDEiCgkJWyAiJChwcmludGYgJyVzJyAiJF9yX3JzIiB8IGN1dCAtYyIkKCgkMiArIDEpKSIpIiA9IDEgXSB8fCByZXR1cm4gMQoJCV9yX2Y9JDMvcmVzdGFydHMuam9iCgkJaWYgWyAiJF90X2JsIiAtZ2UgMCBdOyB0aGVuCgkJCV9yX3NvPSQoY2F0ICIkX3JfZiIgMj4vZGV2L251bGwgfHwgZWNobyAwKQoJCQlbICQoKF9yX3NvICsgMSkpIC1nZSAiJF90X2JsIiBdICYmIHJldHVybiAxCgkJZmkKCQlqc19jb3VudGVyX2FkZCAiJF9yX2YiCgkJcmV0dXJuIDAKCQk7OwoJZXNhYwoJcmV0dXJuIDEKfQoKIyBqc19iYWNrb2ZmIFNUUkVBSyBSQU5fTVMgc2V0cyBfYl93YWl0IChtaWxsaXNlY29uZHMgdG8gd2FpdCBiZWZvcmUgdGhlCiMgcmVzdGFydCkgYW5kIF9iX3N0cmVhaywgYXMgY29tcGxldGlvbi5CYWNrb2ZmLk5leHQ6IHRoZSBmaXJzdCByZXN0YXJ0IG9mIGEKIyBzdHJlYWsgYXQgb25jZTsgdGhlbiBfdF9ib19pbml0LCBkb3VibGluZywgY2FwcGVkIGF0IF90X2JvX21heDsgYSBydW4gb2YKIyBtb3JlIHRoYW4gMiB4IF90X2JvX21heCBzaW5jZSBpdHMgc3RhcnQgYmVnaW5zIGEgbmV3IHN0cmVhay4KanNfYmFja29mZigpIHsKCWlmIFsgIiQxIiAtbGUgMCBdIHx8IFsgIiQyIiAtZ3QgJCgoMiAqIF90X2JvX21heCkpIF07IHRoZW4KCQlfYl93YWl0PTAKCQlfYl9zdHJlYWs9MQoJCXJldHVybgoJZmkKCV9iX3dhaXQ9JF90X2JvX2luaXQKCV9iX249MQoJd2hpbGUgWyAiJF9iX24iIC1sdCAiJDEiIF0gJiYgWyAiJF9iX3dhaXQiIC1sdCAiJF90X2JvX21heCIgXTsgZG8KCQlfYl93YWl0PSQoKF9iX3dhaXQgKiAyKSkKCQlfYl9uPSQoKF9iX24gKyAxKSkKCWRvbmUKCVsgIiRfYl93YWl0IiAtZ3QgIiRfdF9ib19tYXgiIF0gJiYgX2Jfd2FpdD0kX3RfYm9fbWF4CglfYl9zdHJlYWs9JCgoJDEgKyAxKSkKfQoKIyBqc19ub3dfbXM6IG1pbGxpc2Vjb25kcyBzaW5jZSB0aGUgZXBvY2g7IHdob2xlIHNlY29uZHMgd2hlcmUgZGF0ZSBoYXMgbm8KIyAlTiAoc29tZSBpbWFnZXMnIGRhdGUgcHJpbnRzIGl0IGxpdGVyYWxseSkuCmpzX25vd19tcygpIHsKCV9uX25zPSQoZGF0ZSArJXMlTikKCWNhc2UgJF9uX25zIGluCgknJyB8ICpbITAtOV0qKSBlY2hvICQoKCQoZGF0ZSArJXMpICogMTAwMCkpIDs7CgkqKSBlY2hvICQoKF9uX25zIC8gMTAwMDAwMCkpIDs7Cgllc2FjCn0KCiMganNfc2xlZXBfbXMgTVM6IHNsZWVwIGluIHRoZSBiYWNrZ3JvdW5kIGFuZCB3YWl0IGZvciBpdCwgc28gYSBzdG9wICh0aGUKIyBjYWxsZXIncyB0cmFwIHNldHMgX2tfc3RvcD0xIGFuZCBraWxscyAkX3NfcGlkKSBlbmRzIHRoZSB3YWl0IGF0IG9uY2UuIEEKIyBzbGVlcCB3aXRob3V0IGZyYWN0aW9ucyBzbGVlcHMgd2hvbGUgc2Vjb25kcyByb3VuZGVkIHVwIChuZXZlciBzaG9ydGVyCiMgdGhhbiB0aGUgYmFjay1vZmYpLiBUaGUgc2xlZXAgaXMgYSBkaXJlY3QgY2hpbGQsIHNvIGtpbGxpbmcgaXQgZW5kcyBpdC4KanNfc2xlZXBfbXMoKSB7CglbICIke19rX3N0b3A6LTB9IiA9IDEgXSAmJiByZXR1cm4gMAoJaWYgWyAteiAiJHtfc19mcmFjOi19IiBdOyB0aGVuCgkJX3NfZnJhYz0wCgkJc2xlZXAgMC4wMDEgMj4vZGV2L251bGwgJiYgX3NfZnJhYz0xCglmaQoJaWYgWyAiJF9zX2ZyYWMiID0gMSBdOyB0aGVuCgkJc2xlZXAgIiQoKCQxIC8gMTAwMCkpLiQocHJpbnRmICclMDNkJyAkKCgkMSAlIDEwMDApKSkiICYKCWVsc2UKCQlzbGVlcCAkKCgoJDEgKyA5OTkpIC8gMTAwMCkpICYKCWZpCglfc19waWQ9JCEKCSMgYSBzdG9wIHRoYXQgY2FtZSBiZWZvcmUgJF9zX3BpZCB3YXMga25vd24KCVsgIiR7X2tfc3RvcDotMH0iID0gMSBdICYmIGtpbGwgIiRfc19waWQiIDI+L2Rldi9udWxsCgl3YWl0ICIkX3NfcGlkIgoJa2lsbCAiJF9zX3BpZCIgMj4vZGV2L251bGwKCXdhaXQgIiRfc19waWQiIDI+L2Rldi9udWxsCglfc19waWQ9CglyZXR1cm4gMAp9CiMgSW4tcGxhY2UgdGFzayByZXN0YXJ0cyBvbiBOb21hZCAoam9ic2hpZnQpOiBydW5zIHRoZSB0YXNrJ3MgY29tbWFuZCAoIiRAIikKIyBhbmQsIHdoZW4gaXQgZW5kcywgcmVzdGFydHMgaXQgaW4gcGxhY2UgYXMgaXRzIHNvdXJjZSBwbGF0Zm9ybSB3b3VsZAojIChqc19yZXN0YXJ0ID0gY29tcGxldGlvbi5UYXNrUmVzdGFydERlY2lzaW9uKSBhZnRlciB0aGUga3ViZWxldCdzCiMgYmFjay1vZmYgKGpzX2JhY2tvZmYgPSBjb21wbGV0aW9uLkJhY2tvZmYpLiBOb21hZCdzIG93biByZXN0YXJ0IGJsb2NrIGhhcwojIG9ubHkgYSBjb25zdGFudCBkZWxheSwgYW5kIGl0cyBleHBvbmVudGlhbCBkZWxheV9mdW5jdGlvbiBpcyBmb3IKIyByZXNjaGVkdWxpbmcgKGEgbmV3IGFsbG9jYXRpb24sIG5ldyBwb3J0cyksIHNvIHRoZSBsb29wIGxpdmVzIGluIHRoZSB0YXNrLgojCiMgRGF0YSAocmVuZGVyZWQgYmVmb3JlIHRoaXMgdGV4dCk6IGNvbXBsZXRpb24uUmVzdGFydFNoZWxsRGF0YSwgYW5kCiMgX3Rfcm9sZSwgdGhlIHJvbGUncyBpbmRleC4gQ291bnRlZCByZXN0YXJ0cyBhbmQgZXZlcnkgcnVuJ3Mgc3RhcnQvZW5kCiMgKG1pbGxpc2Vjb25kcykgYW5kIGV4aXQgY29kZSBhcmUga2VwdCBpbiB0aGUgdGFzayBkaXJlY3RvcnkuCgpfa19zdG9wPTAKX2tfY2hpbGQ9CiMgQSBzdG9wIChOb21hZCdzIGtpbGxfc2lnbmFsKSBpcyBwYXNzZWQgb24gYXMgU0lHVEVSTSwgYXMgdGhlIGt1YmVsZXQKIyBzdG9wcyBhIGNvbnRhaW5lcjsgdGhlIGNvbW1hbmQgaXMgbmV2ZXIgcmVzdGFydGVkIGFmdGVyIGl0LiBUaGUgY29tbWFuZAojIHJ1bnMgaW4gaXRzIG93biBwcm9jZXNzIGdyb3VwIChzZXRzaWQ6IGRhc2ggaGFzIG5vIGpvYiBjb250cm9sIHdpdGhvdXQgYQojIHRlcm1pbmFsKSBhbmQgdGhlIHdob2xlIGdyb3VwIGdldHMgdGhlIHNpZ25hbDogTm9tYWQgc2lnbmFscyBvbmx5IHRoaXMKIyBzaGVsbCwgYW5kIGEgc2hlbGwgYmV0d2VlbiBpdCBhbmQgdGhlIHVzZXIncyBwcm9jZXNzIChzaCAtYyAiLi4uIikgd291bGQKIyBkaWUgb2YgU0lHVEVSTSBhdCBvbmNlLCBhZnRlciB3aGljaCBOb21hZCBraWxscyB3aGF0IGlzIGxlZnQsIHRoZSB1c2VyJ3MKIyBwcm9jZXNzIGluIGl0cyBjaGVja3BvaW50IChmb3VuZCBieSB0aGUgZmF1bHQgc3VpdGUsIGludGVncmF0aW9uL2ZhdWx0cykuCiMgKE5vICItLSIgYmVmb3JlIGEgbmVnYXRpdmUgUElEOiBkYXNoJ3Mga2lsbCB0YWtlcyBub25lLikKX2tfc2V0c2lkPQpjb21tYW5kIC12IHNldHNpZCA+L2Rldi9udWxsIDI+JjEgJiYgX2tfc2V0c2lkPXNldHNpZAp0cmFwICdfa19zdG9wPTE7IFsgLW4gIiRfa19jaGlsZCIgXSAmJiB7IGtpbGwgLVRFUk0gIi0kX2tfY2hpbGQiIDI+L2Rldi9udWxsIHx8IGtpbGwgLVRFUk0gIiRfa19jaGlsZCIgMj4vZGV2L251bGw7IH07IFsgLW4gIiR7X3NfcGlkOi19IiBdICYmIGtpbGwgIiRfc19waWQiIDI+L2Rldi9udWxsJyBURVJNIElOVApfa19kaXI9JHtOT01BRF9UQVNLX0RJUjotLn0KX2tfaT0ke05PTUFEX0FMTE9DX0lOREVYOi0wfQpfa19zdHJlYWs9MApfa19yYz0wCndoaWxlIDo7IGRvCglfa190MD0kKGpzX25vd19tcykKCSRfa19zZXRzaWQgIiRAIiAmCglfa19jaGlsZD0kIQoJd2FpdCAiJF9rX2NoaWxkIgoJX2tfcmM9JD8KCSMgYSB0cmFwcGVkIHNpZ25hbCBlbmRzIHdhaXQgZWFybHk6IHdhaXQgYWdhaW4gZm9yIHRoZSBjb21tYW5kJ3Mgb3duIGVuZAoJd2hpbGUga2lsbCAtMCAiJF9rX2NoaWxkIiAyPi9kZXYvbnVsbDsgZG8KCQl3YWl0ICIkX2tfY2hpbGQiCgkJX2tfcmM9JD8KCWRvbmUKCWlmIFsgIiRfa19zdG9wIiA9IDEgXTsgdGhlbgoJCSMgdGhlIHJlc3Qgb2YgdGhlIGdyb3VwIGZpbmlzaGVzIGl0cyBjaGVja3BvaW50IChOb21hZCdzCgkJIyBraWxsX3RpbWVvdXQgYm91bmRzIHRoZSB3YWl0OiB0aGVuIGl0IGtpbGxzIGV2ZXJ5IHByb2Nlc3MpCgkJd2hpbGUga2lsbCAtMCAiLSRfa19jaGlsZCIgMj4vZGV2L251bGw7IGRvIHNsZWVwIDAuMTsgZG9uZQoJZmkKCV9rX2NoaWxkPQoJX2tfdDE9JChqc19ub3dfbXMpCgllY2hvICIkX2tfdDAgJF9rX3QxICRfa19yYyIgPj4iJF9rX2Rpci9qb2JzaGlmdC1ydW5zIgoJWyAiJF9rX3N0b3AiID0gMSBdICYmIGJyZWFrCglqc19yZXN0YXJ0ICIkX3Rfcm9sZSIgIiRfa19yYyIgIiRfa19kaXIiICIkX2tfaSIgfHwgYnJlYWsKCWpzX2JhY2tvZmYgIiRfa19zdHJlYWsiICQoKF9rX3QxIC0gX2tfdDApKQoJX2tfc3RyZWFrPSRfYl9zdHJlYWsKCXByaW50ZiAnam9ic2hpZnQ6IHRhc2sgZXhpdGVkIHdpdGggJXM7IHJlc3RhcnRpbmcgaXQgaW4gcGxhY2UgYWZ0ZXIgJXMgbXMgKGt1YmVsZXQgQ3Jhc2hMb29wQmFja09mZilcbicgIiRfa19yYyIgIiRfYl93YWl0IiA+JjIKCWlmIFsgIiRfYl93YWl0IiAtZ3QgMCBdOyB0aGVuCgkJanNfc2xlZXBfbXMgIiRfYl93YWl0IgoJCVsgIiRfa19zdG9wIiA9IDEgXSAmJiBicmVhawoJZmkKZG9uZQpleGl0ICIkX2tfcmMiCg==\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0755"
      }
    }
    task "ps" {
      driver      = "raw_exec"
      kill_signal = "SIGTERM"
      config {
        args    = ["$${NOMAD_TASK_DIR}/jobshift-group.sh", "bash", "-c", "set -o errexit -o nounset -o pipefail\npython3 train.py\n", "user.sh"]
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
      template {
        destination = "local/jobshift-group.sh"
        data        = "{{ base64Decode \"IyBUaGUgc3RvcCB3cmFwcGVyIG9mIGEgTm9tYWQgdGFzayB0aGF0IGlzIG5vdCByZXN0YXJ0ZWQgaW4gcGxhY2UKIyAoam9ic2hpZnQpOiBydW5zIHRoZSB0YXNrJ3MgY29tbWFuZCAoIiRAIikgaW4gaXRzIG93biBwcm9jZXNzIGdyb3VwIGFuZAojIHBhc3NlcyBhIHN0b3Agb24gdG8gdGhlIHdob2xlIGdyb3VwLCBzbyBldmVyeSB0YXNrIGVuZHMgYXMgYSBwb2QgZG9lczoKIyBTSUdURVJNLCB0aGUgZ3JhY2UgcGVyaW9kIChraWxsX3RpbWVvdXQpIGZvciBhIGNoZWNrcG9pbnQsIHRoZW4gU0lHS0lMTC4KIyBXaXRob3V0IGl0IE5vbWFkIHNpZ25hbHMgb25seSB0aGUgdGFzaydzIHRvcCBwcm9jZXNzIChyYXdfZXhlYywgZXhlYyk6CiMgYSBzaGVsbCB0aGVyZSAoYmFzaCAtYyAiYTsgYiIsIHNoIC1jICIuLi4iKSBkaWVzIG9mIFNJR1RFUk0gYXQgb25jZSwgYW5kCiMgTm9tYWQgdGhlbiBTSUdLSUxMcyB3aGF0IGlzIGxlZnQsIHRoZSB1c2VyJ3MgcHJvY2VzcyB3aXRob3V0IGl0cwojIFNJR1RFUk0gKGZvdW5kIGJ5IHRoZSBmYXVsdCBzdWl0ZSwgaW50ZWdyYXRpb24vZmF1bHRzKS4gVGhlIHJlc3RhcnQgbG9vcAojIChyZXN0YXJ0LWxvb3Auc2gpIGRvZXMgdGhlIHNhbWUgZm9yIHRoZSB0YXNrcyBpdCByZXN0YXJ0cy4KIyAoTm8gIi0tIiBiZWZvcmUgYSBuZWdhdGl2ZSBQSUQ6IGRhc2gncyBraWxsIHRha2VzIG5vbmUuKQpfZ19zdG9wPTAKX2dfY2hpbGQ9Cl9nX3NldHNpZD0KY29tbWFuZCAtdiBzZXRzaWQgPi9kZXYvbnVsbCAyPiYxICYmIF9nX3NldHNpZD1zZXRzaWQKdHJhcCAnX2dfc3RvcD0xOyBbIC1uICIkX2dfY2hpbGQiIF0gJiYgeyBraWxsIC1URVJNICItJF9nX2NoaWxkIiAyPi9kZXYvbnVsbCB8fCBraWxsIC1URVJNICIkX2dfY2hpbGQiIDI+L2Rldi9udWxsOyB9JyBURVJNIElOVAokX2dfc2V0c2lkICIkQCIgJgpfZ19jaGlsZD0kIQp3YWl0ICIkX2dfY2hpbGQiCl9nX3JjPSQ/CiMgYSB0cmFwcGVkIHNpZ25hbCBlbmRzIHdhaXQgZWFybHk6IHdhaXQgYWdhaW4gZm9yIHRoZSBjb21tYW5kJ3Mgb3duIGVuZAp3aGlsZSBraWxsIC0wICIkX2dfY2hpbGQiIDI+L2Rldi9udWxsOyBkbwoJd2FpdCAiJF9nX2NoaWxkIgoJX2dfcmM9JD8KZG9uZQppZiBbICIkX2dfc3RvcCIgPSAxIF07IHRoZW4KCSMgdGhlIHJlc3Qgb2YgdGhlIGdyb3VwIGZpbmlzaGVzIGl0cyBjaGVja3BvaW50IChraWxsX3RpbWVvdXQgYm91bmRzCgkjIHRoZSB3YWl0OiB0aGVuIE5vbWFkIGtpbGxzIGV2ZXJ5IHByb2Nlc3MpCgl3aGlsZSBraWxsIC0wICItJF9nX2NoaWxkIiAyPi9kZXYvbnVsbDsgZG8gc2xlZXAgMC4xOyBkb25lCmZpCmV4aXQgIiRfZ19yYyIK\" }}"
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
      port "uai_0" {
      }
      port "uai_1" {
      }
    }
    meta {
      jobshift_role = "train"
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
    jobshift_policy  = "{\"name\":\"uai\",\"format\":\"pai-v2\",\"completion\":{\"kind\":\"pai\",\"pos\":{}},\"retry\":{\"jobRetryCount\":0,\"gangAllocation\":false,\"pos\":{}},\"roles\":[{\"name\":\"train\",\"group\":\"train\",\"instances\":3,\"minFailed\":null,\"minSucceeded\":null}]}"
    jobshift_source  = "uai.yaml"
    jobshift_user    = "alice"
    jobshift_version = "0.1.0-dev"
  }
}
