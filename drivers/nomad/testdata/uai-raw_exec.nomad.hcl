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
        data        = "{{ base64Decode \"X3Rfa2luZD1wYWkKX3RfZ2FuZz0wCl90X2JsPS0xCl90X2NsYXNzZXM9dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXR0cHV1cHB1dXV1cHV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dQpfdF9ib19pbml0PTEwMDAwIF90X2JvX21heD0zMDAwMDAKX3RfdHJldHJ5XzA9MApfdF9yb2xlPTAKIyBJbi1wbGFjZSB0YXNrIHJlc3RhcnRzICh0cmFuc2xhdGUvY29tcGxldGlvbi5UYXNrUmVzdGFydERlY2lzaW9uKSBpbiBQT1NJWAojIHNoLCBydW4gYnkgZWFjaCB0YXNrJ3Mgc3RhZ2UgMSBhZnRlciBpdHMgdXNlciBjb21tYW5kIGVuZGVkLiBBIHRhc2sgaXMKIyByZXBvcnRlZCBlbmRlZCAoaXRzIGV4aXQgY29kZSBmaWxlIHdyaXR0ZW4pIG9ubHkgb25jZSBubyByZXN0YXJ0IGlzIGR1ZSwKIyB3aGljaCBpcyB3aGF0IHRoZSBjb21wbGV0aW9uIHJ1bGVzIGV4cGVjdC4KIwojIERhdGEgKHJlbmRlcmVkIGludG8gdGhlIHRhc2sgcHJvZ3JhbSk6IF90X2tpbmQgcGFpfHRmfHB5dG9yY2h8bm9uZTsKIyBfdF9nYW5nIChQQUkgZ2FuZyBhbGxvY2F0aW9uOiBubyB0YXNrIHJlc3RhcnRzKTsgX3RfdHJldHJ5X1IgKFBBSQojIHRhc2tSZXRyeUNvdW50IG9mIHJvbGUgUik7IF90X3JzX1IgKEt1YmVmbG93IHJlc3RhcnQgcG9saWN5IG9mIHJvbGUgUiBhcwojIDI1NiBjaGFyYWN0ZXJzOiB0aGUgKGNvZGUrMSl0aCBpcyAxIHdoZW4gZXhpdCBjb2RlIGNvZGUgcmVzdGFydHMpOyBfdF9ibAojIChLdWJlZmxvdyBiYWNrb2ZmTGltaXQsIC0xID0gbm9uZSk7IF90X2NsYXNzZXMgKE9wZW5QQUkgY2xhc3Mgb2YgZWFjaCByYXcKIyBleGl0IGNvZGUgMC4uMjU1OiB0IHRyYW5zaWVudCwgcCBwZXJtYW5lbnQsIHUgdW5rbm93bikuCiMKIyBfdF9ib19pbml0LCBfdF9ib19tYXg6IHRoZSByZXN0YXJ0IGJhY2stb2ZmIGluIG1pbGxpc2Vjb25kcwojIChjb21wbGV0aW9uLkJhY2tvZmYsIHRoZSBrdWJlbGV0J3MgQ3Jhc2hMb29wQmFja09mZjogMTAwMDAgMzAwMDAwKS4KIwojIGpzX3Jlc3RhcnQgUiBDT0RFIERJUiBJOiAwID0gcmVzdGFydCB0aGUgdGFzay4gQ291bnRlZCByZXN0YXJ0cyBhcmUga2VwdAojIGluIERJUjogcGVyIHRhc2sgZm9yIFBBSSAocmVzdGFydHMuUi5JKSwgam9iLXdpZGUgZm9yIEt1YmVmbG93CiMgKHJlc3RhcnRzLmpvYiwgd2hvc2UgYmFja29mZkxpbWl0IGNvdW50cyBldmVyeSB0YXNrJ3MgcmVzdGFydHMpLgoKanNfY291bnRlcl9hZGQoKSB7CgkjIG1rZGlyIGlzIGF0b21pYyBvbiBzaGFyZWQgZmlsZSBzeXN0ZW1zOiBhIGxvY2sgYXJvdW5kIHJlYWQrd3JpdGUKCV9sX249MAoJdW50aWwgbWtkaXIgIiQxLmxvY2siIDI+L2Rldi9udWxsOyBkbwoJCXNsZWVwIDAuMDUKCQlfbF9uPSQoKF9sX24gKyAxKSkKCQlbICIkX2xfbiIgLWd0IDIwMCBdICYmIHJtZGlyICIkMS5sb2NrIiAyPi9kZXYvbnVsbAoJZG9uZQoJX2xfdj0kKGNhdCAiJDEiIDI+L2Rldi9udWxsIHx8IGVjaG8gMCkKCWVjaG8gJCgoX2xfdiArIDEpKSA+IiQxIgoJcm1kaXIgIiQxLmxvY2siCn0KCmpzX3Jlc3RhcnQoKSB7CgljYXNlICRfdF9raW5kIGluCglwYWkpCgkJWyAiJF90X2dhbmciID0gMSBdICYmIHJldHVybiAxCgkJWyAiJDIiID0gMCBdICYmIHJldHVybiAxCgkJX3JfY2xzPXUKCQlpZiBbICIkMiIgLWdlIDAgXSAmJiBbICIkMiIgLWxlIDI1NSBdOyB0aGVuCgkJCV9yX2Nscz0kKHByaW50ZiAnJXMnICIkX3RfY2xhc3NlcyIgfCBjdXQgLWMiJCgoJDIgKyAxKSkiKQoJCWZpCgkJY2FzZSAkX3JfY2xzIGluCgkJdCkgcmV0dXJuIDAgOzsKCQlwKSByZXR1cm4gMSA7OwoJCWVzYWMKCQlldmFsICJfcl9tYXg9XCRfdF90cmV0cnlfJDEiCgkJX3JfZj0kMy9yZXN0YXJ0cy4kMS4kNAoJCV9yX3NvPSQoY2F0ICIkX3JfZiIgMj4vZGV2L251bGwgfHwgZWNobyAwKQoJCWlmIFsgIiRfcl9tYXgiID0gLTEgXSB8fCBbICIkX3Jfc28iIC1sdCAiJF9yX21heCIgXTsgdGhlbgoJCQlqc19jb3VudGVyX2FkZCAiJF9yX2YiCgkJCXJldHVybiAwCgkJZmkKCQlyZXR1cm4gMQoJCTs7Cgl0ZiB8IHB5dG9yY2gpCgkJWyAiJDIiIC1nZSAwIF0gJiYgWyAiJDIiIC1sZSAyNTUgXSB8fCByZXR1cm4gMQoJCWV2YWwgIl9yX3JzPVwkX3RfcnNfJDEiCgkJWyAiJChwcmludGYgJyVzJyAiJF9yX3JzIiB8IGN1dCAtYyIkKCgkMiArIDEpKSIpIiA9IDEgXSB8fCByZXR1cm4gMQoJCV9yX2Y9JDMvcmVzdGFydHMuam9iCgkJaWYgWyAiJF90X2JsIiAtZ2UgMCBdOyB0aGVuCgkJCV9yX3NvPSQoY2F0ICIkX3JfZiIgMj4vZGV2L251bGwgfHwgZWNobyAwKQoJCQlbICQoKF9yX3NvICsgMSkpIC1nZSAiJF90X2JsIiBdICYmIHJldHVybiAxCgkJZmkKCQlqc19jb3VudGVyX2FkZCAiJF9yX2YiCgkJcmV0dXJuIDAKCQk7OwoJZXNhYwoJcmV0dXJuIDEKfQoKIyBqc19iYWNrb2ZmIFNUUkVBSyBSQU5fTVMgc2V0cyBfYl93YWl0IChtaWxsaXNlY29uZHMgdG8gd2FpdCBiZWZvcmUgdGhlCiMgcmVzdGFydCkgYW5kIF9iX3N0cmVhaywgYXMgY29tcGxldGlvbi5CYWNrb2ZmLk5leHQ6IHRoZSBmaXJzdCByZXN0YXJ0IG9mIGEKIyBzdHJlYWsgYXQgb25jZTsgdGhlbiBfdF9ib19pbml0LCBkb3VibGluZywgY2FwcGVkIGF0IF90X2JvX21heDsgYSBydW4gb2YKIyBtb3JlIHRoYW4gMiB4IF90X2JvX21heCBzaW5jZSBpdHMgc3RhcnQgYmVnaW5zIGEgbmV3IHN0cmVhay4KanNfYmFja29mZigpIHsKCWlmIFsgIiQxIiAtbGUgMCBdIHx8IFsgIiQyIiAtZ3QgJCgoMiAqIF90X2JvX21heCkpIF07IHRoZW4KCQlfYl93YWl0PTAKCQlfYl9zdHJlYWs9MQoJCXJldHVybgoJZmkKCV9iX3dhaXQ9JF90X2JvX2luaXQKCV9iX249MQoJd2hpbGUgWyAiJF9iX24iIC1sdCAiJDEiIF0gJiYgWyAiJF9iX3dhaXQiIC1sdCAiJF90X2JvX21heCIgXTsgZG8KCQlfYl93YWl0PSQoKF9iX3dhaXQgKiAyKSkKCQlfYl9uPSQoKF9iX24gKyAxKSkKCWRvbmUKCVsgIiRfYl93YWl0IiAtZ3QgIiRfdF9ib19tYXgiIF0gJiYgX2Jfd2FpdD0kX3RfYm9fbWF4CglfYl9zdHJlYWs9JCgoJDEgKyAxKSkKfQoKIyBqc19ub3dfbXM6IG1pbGxpc2Vjb25kcyBzaW5jZSB0aGUgZXBvY2g7IHdob2xlIHNlY29uZHMgd2hlcmUgZGF0ZSBoYXMgbm8KIyAlTiAoc29tZSBpbWFnZXMnIGRhdGUgcHJpbnRzIGl0IGxpdGVyYWxseSkuCmpzX25vd19tcygpIHsKCV9uX25zPSQoZGF0ZSArJXMlTikKCWNhc2UgJF9uX25zIGluCgknJyB8ICpbITAtOV0qKSBlY2hvICQoKCQoZGF0ZSArJXMpICogMTAwMCkpIDs7CgkqKSBlY2hvICQoKF9uX25zIC8gMTAwMDAwMCkpIDs7Cgllc2FjCn0KCiMganNfc2xlZXBfbXMgTVM6IHNsZWVwIGluIHRoZSBiYWNrZ3JvdW5kIGFuZCB3YWl0IGZvciBpdCwgc28gYSBzdG9wICh0aGUKIyBjYWxsZXIncyB0cmFwIHNldHMgX2tfc3RvcD0xIGFuZCBraWxscyAkX3NfcGlkKSBlbmRzIHRoZSB3YWl0IGF0IG9uY2UuIEEKIyBzbGVlcCB3aXRob3V0IGZyYWN0aW9ucyBzbGVlcHMgd2hvbGUgc2Vjb25kcyByb3VuZGVkIHVwIChuZXZlciBzaG9ydGVyCiMgdGhhbiB0aGUgYmFjay1vZmYpLiBUaGUgc2xlZXAgaXMgYSBkaXJlY3QgY2hpbGQsIHNvIGtpbGxpbmcgaXQgZW5kcyBpdC4KIyBJdCBpcyBraWxsZWQgd2l0aCBTSUdLSUxMLCBuZXZlciBTSUdURVJNOiB1bnRpbCB0aGUgZm9ya2VkIGNoaWxkIGhhcwojIGV4ZWMnZCBzbGVlcCBpdCBpcyBzdGlsbCBhIGNvcHkgb2YgdGhpcyBzaGVsbCB3aXRoIHRoZSBjYWxsZXIncyBURVJNCiMgdHJhcCBoYW5kbGVyLCB3aGljaCBvbmx5IHJlY29yZHMgYSBURVJNICh0aGUgdHJhcCBpcyByZXNldCBiZWZvcmUgZXhlYyksCiMgc28gYSBzdG9wIHRoYXQgY2FtZSBqdXN0IGJlZm9yZSBvciBhZnRlciB0aGUgZm9yayBsb3N0IGl0cyBraWxsIGFuZCB0aGUKIyBsb29wIHNsZXB0IG91dCB0aGUgd2hvbGUgYmFjay1vZmYgKFRlc3RSZXN0YXJ0TG9vcFN0b3BEdXJpbmdCYWNrb2ZmLCAxCiMgcnVuIGluIDEwIHVuZGVyIGxvYWQ6IHRoZSB0cmFwIHJhbiwgdGhlIDEgaCBzbGVlcCBsaXZlZCBvbikuCmpzX3NsZWVwX21zKCkgewoJWyAiJHtfa19zdG9wOi0wfSIgPSAxIF0gJiYgcmV0dXJuIDAKCWlmIFsgLXogIiR7X3NfZnJhYzotfSIgXTsgdGhlbgoJCV9zX2ZyYWM9MAoJCXNsZWVwIDAuMDAxIDI+L2Rldi9udWxsICYmIF9zX2ZyYWM9MQoJZmkKCWlmIFsgIiRfc19mcmFjIiA9IDEgXTsgdGhlbgoJCXNsZWVwICIkKCgkMSAvIDEwMDApKS4kKHByaW50ZiAnJTAzZCcgJCgoJDEgJSAxMDAwKSkpIiAmCgllbHNlCgkJc2xlZXAgJCgoKCQxICsgOTk5KSAvIDEwMDApKSAmCglmaQoJX3NfcGlkPSQhCgkjIGEgc3RvcCB0aGF0IGNhbWUgYmVmb3JlICRfc19waWQgd2FzIGtub3duCglbICIke19rX3N0b3A6LTB9IiA9IDEgXSAmJiBraWxsIC1LSUxMICIkX3NfcGlkIiAyPi9kZXYvbnVsbAoJd2FpdCAiJF9zX3BpZCIKCWtpbGwgLUtJTEwgIiRfc19waWQiIDI+L2Rldi9udWxsCgl3YWl0ICIkX3NfcGlkIiAyPi9kZXYvbnVsbAoJX3NfcGlkPQoJcmV0dXJuIDAKfQojIEluLXBsYWNlIHRhc2sgcmVzdGFydHMgb24gTm9tYWQgKGpvYnNoaWZ0KTogcnVucyB0aGUgdGFzaydzIGNvbW1hbmQgKCIkQCIpCiMgYW5kLCB3aGVuIGl0IGVuZHMsIHJlc3RhcnRzIGl0IGluIHBsYWNlIGFzIGl0cyBzb3VyY2UgcGxhdGZvcm0gd291bGQKIyAoanNfcmVzdGFydCA9IGNvbXBsZXRpb24uVGFza1Jlc3RhcnREZWNpc2lvbikgYWZ0ZXIgdGhlIGt1YmVsZXQncwojIGJhY2stb2ZmIChqc19iYWNrb2ZmID0gY29tcGxldGlvbi5CYWNrb2ZmKS4gTm9tYWQncyBvd24gcmVzdGFydCBibG9jayBoYXMKIyBvbmx5IGEgY29uc3RhbnQgZGVsYXksIGFuZCBpdHMgZXhwb25lbnRpYWwgZGVsYXlfZnVuY3Rpb24gaXMgZm9yCiMgcmVzY2hlZHVsaW5nIChhIG5ldyBhbGxvY2F0aW9uLCBuZXcgcG9ydHMpLCBzbyB0aGUgbG9vcCBsaXZlcyBpbiB0aGUgdGFzay4KIwojIERhdGEgKHJlbmRlcmVkIGJlZm9yZSB0aGlzIHRleHQpOiBjb21wbGV0aW9uLlJlc3RhcnRTaGVsbERhdGEsIGFuZAojIF90X3JvbGUsIHRoZSByb2xlJ3MgaW5kZXguIENvdW50ZWQgcmVzdGFydHMgYW5kIGV2ZXJ5IHJ1bidzIHN0YXJ0L2VuZAojIChtaWxsaXNlY29uZHMpIGFuZCBleGl0IGNvZGUgYXJlIGtlcHQgaW4gdGhlIHRhc2sgZGlyZWN0b3J5LgoKX2tfc3RvcD0wCl9rX2NoaWxkPQojIEEgc3RvcCAoTm9tYWQncyBraWxsX3NpZ25hbCkgaXMgcGFzc2VkIG9uIGFzIFNJR1RFUk0sIGFzIHRoZSBrdWJlbGV0CiMgc3RvcHMgYSBjb250YWluZXI7IHRoZSBjb21tYW5kIGlzIG5ldmVyIHJlc3RhcnRlZCBhZnRlciBpdC4gVGhlIGNvbW1hbmQKIyBydW5zIGluIGl0cyBvd24gcHJvY2VzcyBncm91cCAoc2V0c2lkOiBkYXNoIGhhcyBubyBqb2IgY29udHJvbCB3aXRob3V0IGEKIyB0ZXJtaW5hbCkgYW5kIHRoZSB3aG9sZSBncm91cCBnZXRzIHRoZSBzaWduYWw6IE5vbWFkIHNpZ25hbHMgb25seSB0aGlzCiMgc2hlbGwsIGFuZCBhIHNoZWxsIGJldHdlZW4gaXQgYW5kIHRoZSB1c2VyJ3MgcHJvY2VzcyAoc2ggLWMgIi4uLiIpIHdvdWxkCiMgZGllIG9mIFNJR1RFUk0gYXQgb25jZSwgYWZ0ZXIgd2hpY2ggTm9tYWQga2lsbHMgd2hhdCBpcyBsZWZ0LCB0aGUgdXNlcidzCiMgcHJvY2VzcyBpbiBpdHMgY2hlY2twb2ludCAoZm91bmQgYnkgdGhlIGZhdWx0IHN1aXRlLCBpbnRlZ3JhdGlvbi9mYXVsdHMpLgojIChObyAiLS0iIGJlZm9yZSBhIG5lZ2F0aXZlIFBJRDogZGFzaCdzIGtpbGwgdGFrZXMgbm9uZS4pCl9rX3NldHNpZD0KY29tbWFuZCAtdiBzZXRzaWQgPi9kZXYvbnVsbCAyPiYxICYmIF9rX3NldHNpZD1zZXRzaWQKdHJhcCAnX2tfc3RvcD0xOyBbIC1uICIkX2tfY2hpbGQiIF0gJiYgeyBraWxsIC1URVJNICItJF9rX2NoaWxkIiAyPi9kZXYvbnVsbCB8fCBraWxsIC1URVJNICIkX2tfY2hpbGQiIDI+L2Rldi9udWxsOyB9OyBbIC1uICIke19zX3BpZDotfSIgXSAmJiBraWxsIC1LSUxMICIkX3NfcGlkIiAyPi9kZXYvbnVsbCcgVEVSTSBJTlQKX2tfZGlyPSR7Tk9NQURfVEFTS19ESVI6LS59Cl9rX2k9JHtOT01BRF9BTExPQ19JTkRFWDotMH0KX2tfc3RyZWFrPTAKX2tfcmM9MAp3aGlsZSA6OyBkbwoJX2tfdDA9JChqc19ub3dfbXMpCgkkX2tfc2V0c2lkICIkQCIgJgoJX2tfY2hpbGQ9JCEKCXdhaXQgIiRfa19jaGlsZCIKCV9rX3JjPSQ/CgkjIGEgdHJhcHBlZCBzaWduYWwgZW5kcyB3YWl0IGVhcmx5OiB3YWl0IGFnYWluIGZvciB0aGUgY29tbWFuZCdzIG93biBlbmQKCXdoaWxlIGtpbGwgLTAgIiRfa19jaGlsZCIgMj4vZGV2L251bGw7IGRvCgkJd2FpdCAiJF9rX2NoaWxkIgoJCV9rX3JjPSQ/Cglkb25lCglpZiBbICIkX2tfc3RvcCIgPSAxIF07IHRoZW4KCQkjIHRoZSByZXN0IG9mIHRoZSBncm91cCBmaW5pc2hlcyBpdHMgY2hlY2twb2ludCAoTm9tYWQncwoJCSMga2lsbF90aW1lb3V0IGJvdW5kcyB0aGUgd2FpdDogdGhlbiBpdCBraWxscyBldmVyeSBwcm9jZXNzKQoJCXdoaWxlIGtpbGwgLTAgIi0kX2tfY2hpbGQiIDI+L2Rldi9udWxsOyBkbyBzbGVlcCAwLjE7IGRvbmUKCWZpCglfa19jaGlsZD0KCV9rX3QxPSQoanNfbm93X21zKQoJZWNobyAiJF9rX3QwICRfa190MSAkX2tfcmMiID4+IiRfa19kaXIvam9ic2hpZnQtcnVucyIKCVsgIiRfa19zdG9wIiA9IDEgXSAmJiBicmVhawoJanNfcmVzdGFydCAiJF90X3JvbGUiICIkX2tfcmMiICIkX2tfZGlyIiAiJF9rX2kiIHx8IGJyZWFrCglqc19iYWNrb2ZmICIkX2tfc3RyZWFrIiAkKChfa190MSAtIF9rX3QwKSkKCV9rX3N0cmVhaz0kX2Jfc3RyZWFrCglwcmludGYgJ2pvYnNoaWZ0OiB0YXNrIGV4aXRlZCB3aXRoICVzOyByZXN0YXJ0aW5nIGl0IGluIHBsYWNlIGFmdGVyICVzIG1zIChrdWJlbGV0IENyYXNoTG9vcEJhY2tPZmYpXG4nICIkX2tfcmMiICIkX2Jfd2FpdCIgPiYyCglpZiBbICIkX2Jfd2FpdCIgLWd0IDAgXTsgdGhlbgoJCWpzX3NsZWVwX21zICIkX2Jfd2FpdCIKCQlbICIkX2tfc3RvcCIgPSAxIF0gJiYgYnJlYWsKCWZpCmRvbmUKZXhpdCAiJF9rX3JjIgo=\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0755"
      }
    }
    task "ps" {
      driver      = "raw_exec"
      kill_signal = "SIGTERM"
      config {
        args    = ["-c", "_g_stop=0\n_g_child=\n_g_setsid=\ncommand -v setsid >/dev/null 2>&1 && _g_setsid=setsid\ntrap '_g_stop=1; [ -n \"$_g_child\" ] && { kill -TERM \"-$_g_child\" 2>/dev/null || kill -TERM \"$_g_child\" 2>/dev/null; }' TERM INT\n$_g_setsid \"$@\" &\n_g_child=$!\nwait \"$_g_child\"\n_g_rc=$?\nwhile kill -0 \"$_g_child\" 2>/dev/null; do\n\twait \"$_g_child\"\n\t_g_rc=$?\ndone\nif [ \"$_g_stop\" = 1 ]; then\n\twhile kill -0 \"-$_g_child\" 2>/dev/null; do sleep 0.1; done\nfi\nexit \"$_g_rc\"\n", "jobshift-group", "bash", "-c", "set -o errexit -o nounset -o pipefail\npython3 train.py\n", "user.sh"]
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
