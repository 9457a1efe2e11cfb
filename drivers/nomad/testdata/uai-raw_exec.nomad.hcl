job "uai" {
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
        args    = ["-c", "n=0\nwhile :; do\n  l=\n  IFS= read -r l < \"$NOMAD_TASK_DIR/barrier\" 2>/dev/null\n  [ \"$l\" = READY ] && exit 0\n  n=$((n+1))\n  if [ \"$n\" -gt 1200 ]; then\n    echo \"jobshift: barrier timeout: after 2m0s not every task of job uai was placed and registered; still missing: $l. Check 'nomad job status uai' for allocations that could not be placed (not enough CPU, memory or GPUs) or that ended early; the timeout is nomad.barrier_timeout in the site config.\" >&2\n    exit 1\n  fi\n  sleep 0.1\ndone\n"]
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
{{- range $s := nomadService "uai-train-uai-0" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "0/" .) true }}{{ end }}{{ end }}{{ end -}}
{{- range $i := loop 3 }}{{ if not (scratch.Key (print "0/idx-" $i)) }}{{ $missing = printf "%s %s-%d" $missing "train" $i }}{{ end }}{{ end -}}
{{- range $s := nomadService "uai-train-uai-1" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "1/" .) true }}{{ end }}{{ end }}{{ end -}}
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
      driver = "raw_exec"
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
{{- range $s := nomadService "uai-train-uai-0" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "0/" .) $s }}{{ end }}{{ end }}{{ end -}}
{{- range $i := loop 3 }}{{ if not (scratch.Key (print "0/idx-" $i)) }}jobshift-contract: service uai-train-uai-0 has no registration with tag idx-{{ $i }}
{{ end }}{{ end -}}
{{- $self0 := scratch.Get (print "0/idx-" $me) -}}
{{- range $s := nomadService "uai-train-uai-1" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "1/" .) $s }}{{ end }}{{ end }}{{ end -}}
{{- range $i := loop 3 }}{{ if not (scratch.Key (print "1/idx-" $i)) }}jobshift-contract: service uai-train-uai-1 has no registration with tag idx-{{ $i }}
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
        data        = "{{ base64Decode \"X3Rfa2luZD1wYWkKX3RfZ2FuZz0wCl90X2JsPS0xCl90X2NsYXNzZXM9dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXR0cHV1cHB0dXV1cHV0dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dXV1dQpfdF9ib19pbml0PTEwMDAwIF90X2JvX21heD0zMDAwMDAKX3RfdHJldHJ5XzA9MCBfdF9wb2xfMD1OZXZlcgpfdF9yb2xlPTAKIyBJbi1wbGFjZSB0YXNrIHJlc3RhcnRzICh0cmFuc2xhdGUvY29tcGxldGlvbi5UYXNrUmVzdGFydERlY2lzaW9uKSBpbiBQT1NJWAojIHNoLCBydW4gYnkgZWFjaCB0YXNrJ3Mgc3RhZ2UgMSBhZnRlciBpdHMgdXNlciBjb21tYW5kIGVuZGVkLiBBIHRhc2sgaXMKIyByZXBvcnRlZCBlbmRlZCAoaXRzIGV4aXQgY29kZSBmaWxlIHdyaXR0ZW4pIG9ubHkgb25jZSBubyByZXN0YXJ0IGlzIGR1ZSwKIyB3aGljaCBpcyB3aGF0IHRoZSBjb21wbGV0aW9uIHJ1bGVzIGV4cGVjdC4KIwojIERhdGEgKHJlbmRlcmVkIGludG8gdGhlIHRhc2sgcHJvZ3JhbSk6IF90X2tpbmQgcGFpfHRmfHB5dG9yY2h8bm9uZTsKIyBfdF9nYW5nIChQQUkgZ2FuZyBhbGxvY2F0aW9uOiBubyB0YXNrIHJlc3RhcnRzKTsgX3RfdHJldHJ5X1IgKFBBSQojIHRhc2tSZXRyeUNvdW50IG9mIHJvbGUgUik7IF90X3BvbF9SIChLdWJlZmxvdyByZXN0YXJ0UG9saWN5KTsgX3RfYmwKIyAoS3ViZWZsb3cgYmFja29mZkxpbWl0LCAtMSA9IG5vbmUpOyBfdF9jbGFzc2VzIChPcGVuUEFJIGNsYXNzIG9mIGVhY2ggcmF3CiMgZXhpdCBjb2RlIDAuLjI1NTogdCB0cmFuc2llbnQsIHAgcGVybWFuZW50LCB1IHVua25vd24pLgojCiMgX3RfYm9faW5pdCwgX3RfYm9fbWF4OiB0aGUgcmVzdGFydCBiYWNrLW9mZiBpbiBtaWxsaXNlY29uZHMKIyAoY29tcGxldGlvbi5CYWNrb2ZmLCB0aGUga3ViZWxldCdzIENyYXNoTG9vcEJhY2tPZmY6IDEwMDAwIDMwMDAwMCkuCiMKIyBqc19yZXN0YXJ0IFIgQ09ERSBESVIgSTogMCA9IHJlc3RhcnQgdGhlIHRhc2suIENvdW50ZWQgcmVzdGFydHMgYXJlIGtlcHQKIyBpbiBESVI6IHBlciB0YXNrIGZvciBQQUkgKHJlc3RhcnRzLlIuSSksIGpvYi13aWRlIGZvciBLdWJlZmxvdwojIChyZXN0YXJ0cy5qb2IsIHdob3NlIGJhY2tvZmZMaW1pdCBjb3VudHMgZXZlcnkgdGFzaydzIHJlc3RhcnRzKS4KCmpzX2NvdW50ZXJfYWRkKCkgewoJIyBta2RpciBpcyBhdG9taWMgb24gc2hhcmVkIGZpbGUgc3lzdGVtczogYSBsb2NrIGFyb3VuZCByZWFkK3dyaXRlCglfbF9uPTAKCXVudGlsIG1rZGlyICIkMS5sb2NrIiAyPi9kZXYvbnVsbDsgZG8KCQlzbGVlcCAwLjA1CgkJX2xfbj0kKChfbF9uICsgMSkpCgkJWyAiJF9sX24iIC1ndCAyMDAgXSAmJiBybWRpciAiJDEubG9jayIgMj4vZGV2L251bGwKCWRvbmUKCV9sX3Y9JChjYXQgIiQxIiAyPi9kZXYvbnVsbCB8fCBlY2hvIDApCgllY2hvICQoKF9sX3YgKyAxKSkgPiIkMSIKCXJtZGlyICIkMS5sb2NrIgp9Cgpqc19yZXN0YXJ0KCkgewoJY2FzZSAkX3Rfa2luZCBpbgoJcGFpKQoJCVsgIiRfdF9nYW5nIiA9IDEgXSAmJiByZXR1cm4gMQoJCVsgIiQyIiA9IDAgXSAmJiByZXR1cm4gMQoJCV9yX2Nscz11CgkJaWYgWyAiJDIiIC1nZSAwIF0gJiYgWyAiJDIiIC1sZSAyNTUgXTsgdGhlbgoJCQlfcl9jbHM9JChwcmludGYgJyVzJyAiJF90X2NsYXNzZXMiIHwgY3V0IC1jIiQoKCQyICsgMSkpIikKCQlmaQoJCWNhc2UgJF9yX2NscyBpbgoJCXQpIHJldHVybiAwIDs7CgkJcCkgcmV0dXJuIDEgOzsKCQllc2FjCgkJZXZhbCAiX3JfbWF4PVwkX3RfdHJldHJ5XyQxIgoJCV9yX2Y9JDMvcmVzdGFydHMuJDEuJDQKCQlfcl9zbz0kKGNhdCAiJF9yX2YiIDI+L2Rldi9udWxsIHx8IGVjaG8gMCkKCQlpZiBbICIkX3JfbWF4IiA9IC0xIF0gfHwgWyAiJF9yX3NvIiAtbHQgIiRfcl9tYXgiIF07IHRoZW4KCQkJanNfY291bnRlcl9hZGQgIiRfcl9mIgoJCQlyZXR1cm4gMAoJCWZpCgkJcmV0dXJuIDEKCQk7OwoJdGYgfCBweXRvcmNoKQoJCWV2YWwgIl9yX3BvbD1cJF90X3BvbF8kMSIKCQljYXNlICRfcl9wb2wgaW4KCQlBbHdheXMpIDs7CgkJT25GYWlsdXJlKSBbICIkMiIgIT0gMCBdIHx8IHJldHVybiAxIDs7CgkJRXhpdENvZGUpIFsgIiQyIiAtZ2UgMTI4IF0gfHwgcmV0dXJuIDEgOzsKCQkqKSByZXR1cm4gMSA7OwoJCWVzYWMKCQlfcl9mPSQzL3Jlc3RhcnRzLmpvYgoJCWlmIFsgIiRfdF9ibCIgLWdlIDAgXTsgdGhlbgoJCQlfcl9zbz0kKGNhdCAiJF9yX2YiIDI+L2Rldi9udWxsIHx8IGVjaG8gMCkKCQkJWyAkKChfcl9zbyArIDEpKSAtZ2UgIiRfdF9ibCIgXSAmJiByZXR1cm4gMQoJCWZpCgkJanNfY291bnRlcl9hZGQgIiRfcl9mIgoJCXJldHVybiAwCgkJOzsKCWVzYWMKCXJldHVybiAxCn0KCiMganNfYmFja29mZiBTVFJFQUsgUkFOX01TIHNldHMgX2Jfd2FpdCAobWlsbGlzZWNvbmRzIHRvIHdhaXQgYmVmb3JlIHRoZQojIHJlc3RhcnQpIGFuZCBfYl9zdHJlYWssIGFzIGNvbXBsZXRpb24uQmFja29mZi5OZXh0OiB0aGUgZmlyc3QgcmVzdGFydCBvZiBhCiMgc3RyZWFrIGF0IG9uY2U7IHRoZW4gX3RfYm9faW5pdCwgZG91YmxpbmcsIGNhcHBlZCBhdCBfdF9ib19tYXg7IGEgcnVuIG9mCiMgbW9yZSB0aGFuIDIgeCBfdF9ib19tYXggc2luY2UgaXRzIHN0YXJ0IGJlZ2lucyBhIG5ldyBzdHJlYWsuCmpzX2JhY2tvZmYoKSB7CglpZiBbICIkMSIgLWxlIDAgXSB8fCBbICIkMiIgLWd0ICQoKDIgKiBfdF9ib19tYXgpKSBdOyB0aGVuCgkJX2Jfd2FpdD0wCgkJX2Jfc3RyZWFrPTEKCQlyZXR1cm4KCWZpCglfYl93YWl0PSRfdF9ib19pbml0CglfYl9uPTEKCXdoaWxlIFsgIiRfYl9uIiAtbHQgIiQxIiBdICYmIFsgIiRfYl93YWl0IiAtbHQgIiRfdF9ib19tYXgiIF07IGRvCgkJX2Jfd2FpdD0kKChfYl93YWl0ICogMikpCgkJX2Jfbj0kKChfYl9uICsgMSkpCglkb25lCglbICIkX2Jfd2FpdCIgLWd0ICIkX3RfYm9fbWF4IiBdICYmIF9iX3dhaXQ9JF90X2JvX21heAoJX2Jfc3RyZWFrPSQoKCQxICsgMSkpCn0KCiMganNfbm93X21zOiBtaWxsaXNlY29uZHMgc2luY2UgdGhlIGVwb2NoOyB3aG9sZSBzZWNvbmRzIHdoZXJlIGRhdGUgaGFzIG5vCiMgJU4gKHNvbWUgaW1hZ2VzJyBkYXRlIHByaW50cyBpdCBsaXRlcmFsbHkpLgpqc19ub3dfbXMoKSB7Cglfbl9ucz0kKGRhdGUgKyVzJU4pCgljYXNlICRfbl9ucyBpbgoJJycgfCAqWyEwLTldKikgZWNobyAkKCgkKGRhdGUgKyVzKSAqIDEwMDApKSA7OwoJKikgZWNobyAkKChfbl9ucyAvIDEwMDAwMDApKSA7OwoJZXNhYwp9CgojIGpzX3NsZWVwX21zIE1TOiBzbGVlcCBpbiB0aGUgYmFja2dyb3VuZCBhbmQgd2FpdCBmb3IgaXQsIHNvIGEgc3RvcCAodGhlCiMgY2FsbGVyJ3MgdHJhcCBzZXRzIF9rX3N0b3A9MSBhbmQga2lsbHMgJF9zX3BpZCkgZW5kcyB0aGUgd2FpdCBhdCBvbmNlLiBBCiMgc2xlZXAgd2l0aG91dCBmcmFjdGlvbnMgc2xlZXBzIHdob2xlIHNlY29uZHMgcm91bmRlZCB1cCAobmV2ZXIgc2hvcnRlcgojIHRoYW4gdGhlIGJhY2stb2ZmKS4gVGhlIHNsZWVwIGlzIGEgZGlyZWN0IGNoaWxkLCBzbyBraWxsaW5nIGl0IGVuZHMgaXQuCmpzX3NsZWVwX21zKCkgewoJWyAiJHtfa19zdG9wOi0wfSIgPSAxIF0gJiYgcmV0dXJuIDAKCWlmIFsgLXogIiR7X3NfZnJhYzotfSIgXTsgdGhlbgoJCV9zX2ZyYWM9MAoJCXNsZWVwIDAuMDAxIDI+L2Rldi9udWxsICYmIF9zX2ZyYWM9MQoJZmkKCWlmIFsgIiRfc19mcmFjIiA9IDEgXTsgdGhlbgoJCXNsZWVwICIkKCgkMSAvIDEwMDApKS4kKHByaW50ZiAnJTAzZCcgJCgoJDEgJSAxMDAwKSkpIiAmCgllbHNlCgkJc2xlZXAgJCgoKCQxICsgOTk5KSAvIDEwMDApKSAmCglmaQoJX3NfcGlkPSQhCgkjIGEgc3RvcCB0aGF0IGNhbWUgYmVmb3JlICRfc19waWQgd2FzIGtub3duCglbICIke19rX3N0b3A6LTB9IiA9IDEgXSAmJiBraWxsICIkX3NfcGlkIiAyPi9kZXYvbnVsbAoJd2FpdCAiJF9zX3BpZCIKCWtpbGwgIiRfc19waWQiIDI+L2Rldi9udWxsCgl3YWl0ICIkX3NfcGlkIiAyPi9kZXYvbnVsbAoJX3NfcGlkPQoJcmV0dXJuIDAKfQojIEluLXBsYWNlIHRhc2sgcmVzdGFydHMgb24gTm9tYWQgKGpvYnNoaWZ0KTogcnVucyB0aGUgdGFzaydzIGNvbW1hbmQgKCIkQCIpCiMgYW5kLCB3aGVuIGl0IGVuZHMsIHJlc3RhcnRzIGl0IGluIHBsYWNlIGFzIGl0cyBzb3VyY2UgcGxhdGZvcm0gd291bGQKIyAoanNfcmVzdGFydCA9IGNvbXBsZXRpb24uVGFza1Jlc3RhcnREZWNpc2lvbikgYWZ0ZXIgdGhlIGt1YmVsZXQncwojIGJhY2stb2ZmIChqc19iYWNrb2ZmID0gY29tcGxldGlvbi5CYWNrb2ZmKS4gTm9tYWQncyBvd24gcmVzdGFydCBibG9jayBoYXMKIyBvbmx5IGEgY29uc3RhbnQgZGVsYXksIGFuZCBpdHMgZXhwb25lbnRpYWwgZGVsYXlfZnVuY3Rpb24gaXMgZm9yCiMgcmVzY2hlZHVsaW5nIChhIG5ldyBhbGxvY2F0aW9uLCBuZXcgcG9ydHMpLCBzbyB0aGUgbG9vcCBsaXZlcyBpbiB0aGUgdGFzay4KIwojIERhdGEgKHJlbmRlcmVkIGJlZm9yZSB0aGlzIHRleHQpOiBjb21wbGV0aW9uLlJlc3RhcnRTaGVsbERhdGEsIGFuZAojIF90X3JvbGUsIHRoZSByb2xlJ3MgaW5kZXguIENvdW50ZWQgcmVzdGFydHMgYW5kIGV2ZXJ5IHJ1bidzIHN0YXJ0L2VuZAojIChtaWxsaXNlY29uZHMpIGFuZCBleGl0IGNvZGUgYXJlIGtlcHQgaW4gdGhlIHRhc2sgZGlyZWN0b3J5LgoKX2tfc3RvcD0wCl9rX2NoaWxkPQojIEEgc3RvcCAoTm9tYWQncyBraWxsX3NpZ25hbCkgaXMgcGFzc2VkIG9uIGFzIFNJR1RFUk0sIGFzIHRoZSBrdWJlbGV0CiMgc3RvcHMgYSBjb250YWluZXI7IHRoZSBjb21tYW5kIGlzIG5ldmVyIHJlc3RhcnRlZCBhZnRlciBpdC4KdHJhcCAnX2tfc3RvcD0xOyBbIC1uICIkX2tfY2hpbGQiIF0gJiYga2lsbCAtVEVSTSAiJF9rX2NoaWxkIiAyPi9kZXYvbnVsbDsgWyAtbiAiJHtfc19waWQ6LX0iIF0gJiYga2lsbCAiJF9zX3BpZCIgMj4vZGV2L251bGwnIFRFUk0gSU5UCl9rX2Rpcj0ke05PTUFEX1RBU0tfRElSOi0ufQpfa19pPSR7Tk9NQURfQUxMT0NfSU5ERVg6LTB9Cl9rX3N0cmVhaz0wCl9rX3JjPTAKd2hpbGUgOjsgZG8KCV9rX3QwPSQoanNfbm93X21zKQoJIiRAIiAmCglfa19jaGlsZD0kIQoJd2FpdCAiJF9rX2NoaWxkIgoJX2tfcmM9JD8KCSMgYSB0cmFwcGVkIHNpZ25hbCBlbmRzIHdhaXQgZWFybHk6IHdhaXQgYWdhaW4gZm9yIHRoZSBjb21tYW5kJ3Mgb3duIGVuZAoJd2hpbGUga2lsbCAtMCAiJF9rX2NoaWxkIiAyPi9kZXYvbnVsbDsgZG8KCQl3YWl0ICIkX2tfY2hpbGQiCgkJX2tfcmM9JD8KCWRvbmUKCV9rX2NoaWxkPQoJX2tfdDE9JChqc19ub3dfbXMpCgllY2hvICIkX2tfdDAgJF9rX3QxICRfa19yYyIgPj4iJF9rX2Rpci9qb2JzaGlmdC1ydW5zIgoJWyAiJF9rX3N0b3AiID0gMSBdICYmIGJyZWFrCglqc19yZXN0YXJ0ICIkX3Rfcm9sZSIgIiRfa19yYyIgIiRfa19kaXIiICIkX2tfaSIgfHwgYnJlYWsKCWpzX2JhY2tvZmYgIiRfa19zdHJlYWsiICQoKF9rX3QxIC0gX2tfdDApKQoJX2tfc3RyZWFrPSRfYl9zdHJlYWsKCXByaW50ZiAnam9ic2hpZnQ6IHRhc2sgZXhpdGVkIHdpdGggJXM7IHJlc3RhcnRpbmcgaXQgaW4gcGxhY2UgYWZ0ZXIgJXMgbXMgKGt1YmVsZXQgQ3Jhc2hMb29wQmFja09mZilcbicgIiRfa19yYyIgIiRfYl93YWl0IiA+JjIKCWlmIFsgIiRfYl93YWl0IiAtZ3QgMCBdOyB0aGVuCgkJanNfc2xlZXBfbXMgIiRfYl93YWl0IgoJCVsgIiRfa19zdG9wIiA9IDEgXSAmJiBicmVhawoJZmkKZG9uZQpleGl0ICIkX2tfcmMiCg==\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0755"
      }
    }
    task "ps" {
      driver = "raw_exec"
      config {
        args    = ["-c", "set -o errexit -o nounset -o pipefail\npython3 train.py\n", "user.sh"]
        command = "bash"
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
{{- range $s := nomadService "uai-train-uai-0" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "0/" .) $s }}{{ end }}{{ end }}{{ end -}}
{{- range $i := loop 3 }}{{ if not (scratch.Key (print "0/idx-" $i)) }}jobshift-contract: service uai-train-uai-0 has no registration with tag idx-{{ $i }}
{{ end }}{{ end -}}
{{- $self0 := scratch.Get (print "0/idx-" $me) -}}
{{- range $s := nomadService "uai-train-uai-1" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "1/" .) $s }}{{ end }}{{ end }}{{ end -}}
{{- range $i := loop 3 }}{{ if not (scratch.Key (print "1/idx-" $i)) }}jobshift-contract: service uai-train-uai-1 has no registration with tag idx-{{ $i }}
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
      name     = "uai-train-uai-0"
      tags     = ["idx-$${NOMAD_ALLOC_INDEX}"]
      port     = "uai_0"
      provider = "nomad"
    }
    service {
      name     = "uai-train-uai-1"
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
    jobshift_version = "0.1.0-dev"
  }
}
