job "alice~bench" {
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
        args    = ["-c", "n=0\nwhile :; do\n  l=\n  IFS= read -r l < \"$NOMAD_TASK_DIR/barrier\" 2>/dev/null\n  [ \"$l\" = READY ] && exit 0\n  n=$((n+1))\n  if [ \"$n\" -gt 1200 ]; then\n    echo \"jobshift: barrier timeout: after 2m0s not every task of job alice~bench was placed and registered; still missing: $l. Check 'nomad job status alice~bench' for allocations that could not be placed (not enough CPU, memory or GPUs) or that ended early; the timeout is nomad.barrier_timeout in the site config.\" >&2\n    exit 1\n  fi\n  sleep 0.1\ndone\n"]
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
{{- range $s := nomadService "alice-bench-launcher-ssh-0" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "0/" .) true }}{{ end }}{{ end }}{{ end -}}
{{- range $i := loop 1 }}{{ if not (scratch.Key (print "0/idx-" $i)) }}{{ $missing = printf "%s %s-%d" $missing "launcher" $i }}{{ end }}{{ end -}}
{{- range $s := nomadService "alice-bench-worker-ssh-0" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "1/" .) true }}{{ end }}{{ end }}{{ end -}}
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
        args    = ["$${NOMAD_TASK_DIR}/jobshift-sshemu.sh", "--", "/bin/sh", "$${NOMAD_TASK_DIR}/jobshift-group.sh", "mpirun", "-np", "2", "./bench"]
        command = "sh"
      }
      env {
        CUDA_VISIBLE_DEVICES = ""
        JOBSHIFT_SSH_DIR     = "$${NOMAD_TASK_DIR}/ssh"
        JOBSHIFT_SSH_KEY     = "$${NOMAD_SECRETS_DIR}/jobshift-ssh-key"
      }
      resources {
      }
      template {
        destination = "local/jobshift.env"
        data        = <<EOT
{{- $h := "" -}}{{- $all := nomadService "alice-bench-launcher-ssh-0" -}}{{- range $i := loop 1 -}}{{- range $all -}}{{- if and (eq .JobID (env "NOMAD_JOB_ID")) (.Tags | contains (printf "idx-%d" $i)) -}}{{- if ne $h "" }}{{ $h = printf "%s," $h }}{{ end -}}{{- $h = printf "%s%s:%d" $h .Address .Port -}}{{- end -}}{{- end -}}{{- end }}
JS_HOSTS_LAUNCHER={{ $h }}
{{- $h := "" -}}{{- $all := nomadService "alice-bench-worker-ssh-0" -}}{{- range $i := loop 2 -}}{{- range $all -}}{{- if and (eq .JobID (env "NOMAD_JOB_ID")) (.Tags | contains (printf "idx-%d" $i)) -}}{{- if ne $h "" }}{{ $h = printf "%s," $h }}{{ end -}}{{- $h = printf "%s%s:%d" $h .Address .Port -}}{{- end -}}{{- end -}}{{- end }}
JS_HOSTS_WORKER={{ $h }}
JS_ROLE=launcher
JS_INDEX={{ env "NOMAD_ALLOC_INDEX" }}
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
      template {
        destination = "local/jobshift-sshemu.sh"
        data        = "{{ base64Decode \"IyBqb2JzaGlmdCBzc2ggZW11bGF0aW9uOiB3aGF0IE9wZW5QQUkncyBzc2ggcnVudGltZSBwbHVnaW4gYW5kCiMgbXBpLW9wZXJhdG9yJ3MgcG9kcyBnYXZlIGV2ZXJ5IHRhc2ssIHJlYnVpbHQgd2l0aG91dCByb290IGFuZCB3aXRob3V0CiMgdG91Y2hpbmcgdGhlIHVzZXIncyB+Ly5zc2g6CiMgICAtIGFuIHNzaGQgb2YgdGhlIHRhc2sncyBvd24gb24gaXRzIGBzc2hgIHBvcnQsIGFjY2VwdGluZyB0aGUgam9iJ3Mga2V5CiMgICAgIChhbmQgdGhlIHVzZXJzc2ggcHVibGljIGtleXMpLCB3aXRoIGEgaG9zdCBrZXkgbWFkZSBoZXJlOwojICAgLSBhbiBzc2ggY2xpZW50IGNvbmZpZyB3aG9zZSBIb3N0IGVudHJpZXMgbWFwIGV2ZXJ5IHBlZXIncyBhbGlhcwojICAgICAoPHJvbGU+LTxpPiwgb3IgdGhlIE1QSUpvYiBwb2QgaG9zdCBuYW1lcykgdG8gaXRzIGFkZHJlc3MgYW5kIHBvcnQsCiMgICAgIHVzZWQgdGhyb3VnaCBhbiBgc3NoYCBlYXJseSBvbiBQQVRILCBzbyBgc3NoIHdvcmtlci0wYCwgbXBpcnVuIGFuZAojICAgICBob3Jvdm9kcnVuIHJlYWNoIHRoZSBwZWVycyB1bmNoYW5nZWQ7CiMgICAtIGZvciBhbiBNUElKb2IgdGFzaywgdGhlIGhvc3RmaWxlIChhbmQga3ViZXhlYy5zaCkgaW4gdGhlIG1waSBkaXI7CiMgICAtIHNzaGJhcnJpZXI6IHRoZSBjb21tYW5kIHN0YXJ0cyBvbmNlIGV2ZXJ5IHBlZXIncyBzc2hkIGFuc3dlcnMuCiMgVGhlbiBpdCBleGVjcyB0aGUgY29tbWFuZCAob3IsIHdpdGggLS1pZGxlLCBydW5zIHRoZSBzc2hkIGluIHRoZQojIGZvcmVncm91bmQ6IGFuIE1QSUpvYiB3b3JrZXIgd2hvc2Ugb3duIGNvbW1hbmQgd2FzIGFuIHNzaGQpLgojCiMgVXNhZ2U6IHNoIHNzaGVtdS5zaCBbLS1pZGxlXSBbLS1dIGNvbW1hbmQgW2FyZ3MuLi5dCiMgRW52aXJvbm1lbnQgKHNlZSBkcml2ZXJzL3NzaGVtdSBhbmQgdHJhbnNsYXRlL2NvbnRyYWN0L3NzaC5nbyk6CiMgICBKT0JTSElGVF9TU0hfSE9TVFMgICAiPGFkZHI+IDxwb3J0PiA8YWxpYXM+Li4uIiwgZW50cmllcyBqb2luZWQgYnkgJywnCiMgICBKT0JTSElGVF9TU0hfU0VMRiAgICB0aGlzIHRhc2sncyBmaXJzdCBhbGlhcwojICAgSk9CU0hJRlRfU1NIX0tFWSAgICAgdGhlIGpvYidzIHByaXZhdGUga2V5IGZpbGUgKGEgc2VjcmV0OyByZWFkIG9ubHkpCiMgICBKT0JTSElGVF9TU0hfRElSICAgICB3aGVyZSB0aGlzIHRhc2sncyBzc2hkIGFuZCBjbGllbnQgZmlsZXMgZ28KIyAgICAgICAgICAgICAgICAgICAgICAgICgiIiA9IGEgbmV3IGRpcmVjdG9yeSB1bmRlciAkVE1QRElSKQojICAgSk9CU0hJRlRfU1NIX1VTRVJLRVlTICBleHRyYSBhdXRob3JpemVkIHB1YmxpYyBrZXlzLCBvbmUgcGVyIGxpbmUKIyAgIEpPQlNISUZUX1NTSF9CQVJSSUVSIHNlY29uZHMgdG8gd2FpdCBmb3IgZXZlcnkgcGVlciAoIiIgPSBubyBiYXJyaWVyKQojICAgSk9CU0hJRlRfTVBJX0RJUiwgSk9CU0hJRlRfTVBJX0hPU1RGSUxFICBob3N0ZmlsZSBsaW5lcyBqb2luZWQgYnkgJywnCiMgRXhpdCBjb2RlczogMjQ5IGJhcnJpZXIgdGltZW91dCAoT3BlblBBSSdzIGNvZGUpLCAxIHNldHVwIGZhaWx1cmUuCgpzZXQgLXUKdW1hc2sgMDc3CgpmYWlsKCkgewoJcHJpbnRmICdqb2JzaGlmdCBzc2ggZW11bGF0aW9uOiAlc1xuJyAiJCoiID4mMgoJZXhpdCAxCn0KCmlkbGU9MAppZiBbICIkezE6LX0iID0gLS1pZGxlIF07IHRoZW4KCWlkbGU9MQoJc2hpZnQKZmkKaWYgWyAiJHsxOi19IiA9IC0tIF07IHRoZW4KCXNoaWZ0CmZpCgpob3N0cz0ke0pPQlNISUZUX1NTSF9IT1NUUzo/fQptZT0ke0pPQlNISUZUX1NTSF9TRUxGOj99CmtleT0ke0pPQlNISUZUX1NTSF9LRVk6P30KZGlyPSR7Sk9CU0hJRlRfU1NIX0RJUjotfQppZiBbIC16ICIkZGlyIiBdOyB0aGVuCglkaXI9JChta3RlbXAgLWQgIiR7VE1QRElSOi0vdG1wfS9qb2JzaGlmdC1zc2guWFhYWFhYIikgfHwgZmFpbCAiY2Fubm90IG1ha2UgYSBkaXJlY3RvcnkgdW5kZXIgJHtUTVBESVI6LS90bXB9IgpmaQpta2RpciAtcCAiJGRpci9iaW4iIHx8IGZhaWwgImNhbm5vdCBtYWtlICRkaXIiCmNobW9kIDcwMCAiJGRpciIgfHwgZmFpbCAiY2Fubm90IHByb3RlY3QgJGRpciIKCnNzaGQ9JHtKT0JTSElGVF9TU0hEOi19CmlmIFsgLXogIiRzc2hkIiBdOyB0aGVuCglzc2hkPSQoY29tbWFuZCAtdiBzc2hkKSB8fCBzc2hkPS91c3Ivc2Jpbi9zc2hkCmZpCnNzaD0kKGNvbW1hbmQgLXYgc3NoKSB8fCBmYWlsICJzc2ggbm90IGZvdW5kIG9uIFBBVEggKGluc3RhbGwgb3BlbnNzaC1jbGllbnQpIgprZXlnZW49JChjb21tYW5kIC12IHNzaC1rZXlnZW4pIHx8IGZhaWwgInNzaC1rZXlnZW4gbm90IGZvdW5kIG9uIFBBVEggKGluc3RhbGwgb3BlbnNzaC1jbGllbnQpIgpbIC14ICIkc3NoZCIgXSB8fCBmYWlsICJzc2hkIG5vdCBmb3VuZCAoaW5zdGFsbCBvcGVuc3NoLXNlcnZlciwgb3Igc2V0IEpPQlNISUZUX1NTSEQpIgp1c2VyPSQoaWQgLXVuKSB8fCBmYWlsICJjYW5ub3QgdGVsbCB0aGUgdXNlciBuYW1lIgoKIyBxIHF1b3RlcyBhIHZhbHVlIGZvciBzc2hfY29uZmlnIC8gc3NoZF9jb25maWcgKCIuLi4iOyAnJScgZG91YmxlZCBmb3IgdGhlCiMgdG9rZW5zIHNzaGQgZXhwYW5kcykuCnEoKSB7IHByaW50ZiAnIiVzIicgIiQocHJpbnRmICclcycgIiQxIiB8IHNlZCAncy8lLyUlL2cnKSI7IH0KIyBzcSBxdW90ZXMgYSB2YWx1ZSBmb3Igc2guCnNxKCkgeyBwcmludGYgIiclcyciICIkKHByaW50ZiAnJXMnICIkMSIgfCBzZWQgInMvJy8nXFxcXCcnL2ciKSI7IH0KCiMgVGhlIGtleSBpcyB1c2VkIHdoZXJlIHRoZSB0YXJnZXQgcHV0IGl0ICgwNjAwKTogbm8gY29weSBvZiBhIHNlY3JldC4KIiRrZXlnZW4iIC15IC1mICIka2V5IiA+IiRkaXIvaWQucHViIiB8fCBmYWlsICJjYW5ub3QgcmVhZCB0aGUgam9iIGtleSAka2V5Igp7CgljYXQgIiRkaXIvaWQucHViIgoJaWYgWyAtbiAiJHtKT0JTSElGVF9TU0hfVVNFUktFWVM6LX0iIF07IHRoZW4KCQlwcmludGYgJyVzXG4nICIkSk9CU0hJRlRfU1NIX1VTRVJLRVlTIgoJZmkKfSA+IiRkaXIvYXV0aG9yaXplZF9rZXlzIgpybSAtZiAiJGRpci9ob3N0X2tleSIgIiRkaXIvaG9zdF9rZXkucHViIgoiJGtleWdlbiIgLXEgLXQgZWQyNTUxOSAtTiAnJyAtZiAiJGRpci9ob3N0X2tleSIgfHwgZmFpbCAiY2Fubm90IG1ha2UgYSBob3N0IGtleSIKCiMgVGhlIGNsaWVudCBjb25maWc6IG9uZSBIb3N0IGJsb2NrIHBlciBwZWVyLCB0aGVuIHRoZSBqb2Itd2lkZSBzZXR0aW5ncy4KIyAoQSBmdW5jdGlvbiwgc28gYHNldCAtLWAgbGVhdmVzIHRoZSBjb21tYW5kJ3MgYXJndW1lbnRzIGFsb25lLikKaG9zdF9ibG9ja3MoKSB7CglvbGRfaWZzPSRJRlMKCUlGUz0sCglmb3IgZW50cnkgaW4gJGhvc3RzOyBkbwoJCUlGUz0nICcKCQkjIHNoZWxsY2hlY2sgZGlzYWJsZT1TQzIwODYgIyB0aGUgZW50cnkgaXMgc3BsaXQgb24gcHVycG9zZQoJCXNldCAtLSAkZW50cnkKCQlJRlM9LAoJCVsgJCMgLWdlIDMgXSB8fCBmYWlsICJiYWQgaG9zdCBlbnRyeSAnJGVudHJ5JyIKCQlhPSQxIHA9JDIKCQlzaGlmdCAyCgkJSUZTPScgJyAjICIkKiIgam9pbnMgd2l0aCB0aGUgZmlyc3QgY2hhcmFjdGVyIG9mIElGUwoJCXByaW50ZiAnSG9zdCAlc1xuXHRIb3N0TmFtZSAlc1xuXHRQb3J0ICVzXG4nICIkKiIgIiRhIiAiJHAiID4+IiRkaXIvc3NoX2NvbmZpZyIKCQlJRlM9LAoJCWFsaWFzZXM9IiRhbGlhc2VzICQxIgoJCWZvciBuIGluICIkQCI7IGRvCgkJCWlmIFsgIiRuIiA9ICIkbWUiIF07IHRoZW4KCQkJCWFkZHI9JGEgcG9ydD0kcAoJCQlmaQoJCWRvbmUKCWRvbmUKCUlGUz0kb2xkX2lmcwp9CmFkZHI9JycgcG9ydD0nJyBhbGlhc2VzPScnCjogPiIkZGlyL3NzaF9jb25maWciCmhvc3RfYmxvY2tzClsgLW4gIiRwb3J0IiBdIHx8IGZhaWwgInRoaXMgdGFzayAoJG1lKSBpcyBub3QgaW4gSk9CU0hJRlRfU1NIX0hPU1RTIgpjYXQgPj4iJGRpci9zc2hfY29uZmlnIiA8PEVPRgpIb3N0ICoKCVVzZXIgJHVzZXIKCUlkZW50aXR5RmlsZSAkKHEgIiRrZXkiKQoJSWRlbnRpdGllc09ubHkgeWVzCglTdHJpY3RIb3N0S2V5Q2hlY2tpbmcgbm8KCVVzZXJLbm93bkhvc3RzRmlsZSAvZGV2L251bGwKCUdsb2JhbEtub3duSG9zdHNGaWxlIC9kZXYvbnVsbAoJTG9nTGV2ZWwgRVJST1IKCUJhdGNoTW9kZSB5ZXMKCUNvbm5lY3Rpb25BdHRlbXB0cyAxMApFT0YKcHJpbnRmICcjIS9iaW4vc2hcbmV4ZWMgJXMgLUYgJXMgIiRAIlxuJyAiJChzcSAiJHNzaCIpIiAiJChzcSAiJGRpci9zc2hfY29uZmlnIikiID4iJGRpci9iaW4vc3NoIgpjaG1vZCA3MDAgIiRkaXIvYmluL3NzaCIKUEFUSD0kZGlyL2JpbjokUEFUSApleHBvcnQgUEFUSAoKIyBUaGUgc3NoZDoga2V5IGxvZ2lucyBvbmx5LCBmb3IgdGhpcyB1c2VyLCB3aXRoIHRoZSB0YXNrJ3Mgc2VhcmNoIHBhdGhzCiMgKGFuIHNzaCBzZXNzaW9uIHN0YXJ0cyB3aXRoIGEgZnJlc2ggZW52aXJvbm1lbnQ7IE9wZW5QQUkgY29waWVkIGl0cwojIHZhcmlhYmxlcyB0byAvZXRjL2Vudmlyb25tZW50IGZvciB0aGUgc2FtZSByZWFzb24pLgp7CglwcmludGYgJ1BvcnQgJXNcbkxpc3RlbkFkZHJlc3MgJXNcbicgIiRwb3J0IiAiJGFkZHIiCglwcmludGYgJ0hvc3RLZXkgJXNcblBpZEZpbGUgJXNcbkF1dGhvcml6ZWRLZXlzRmlsZSAlc1xuJyAiJChxICIkZGlyL2hvc3Rfa2V5IikiICIkKHEgIiRkaXIvc3NoZC5waWQiKSIgIiQocSAiJGRpci9hdXRob3JpemVkX2tleXMiKSIKCXByaW50ZiAnU3RyaWN0TW9kZXMgbm9cblVzZVBBTSBub1xuUGFzc3dvcmRBdXRoZW50aWNhdGlvbiBub1xuS2JkSW50ZXJhY3RpdmVBdXRoZW50aWNhdGlvbiBub1xuJwoJcHJpbnRmICdQdWJrZXlBdXRoZW50aWNhdGlvbiB5ZXNcblBlcm1pdFJvb3RMb2dpbiBwcm9oaWJpdC1wYXNzd29yZFxuQWxsb3dVc2VycyAlc1xuJyAiJHVzZXIiCglwcmludGYgJ1ByaW50TW90ZCBub1xuWDExRm9yd2FyZGluZyBub1xuTWF4U3RhcnR1cHMgMTAwOjMwOjIwMFxuTWF4U2Vzc2lvbnMgMTAwXG4nCglmb3IgdiBpbiBQQVRIIExEX0xJQlJBUllfUEFUSCBQWVRIT05QQVRIIE9NUElfQUxMT1dfUlVOX0FTX1JPT1QgT01QSV9BTExPV19SVU5fQVNfUk9PVF9DT05GSVJNOyBkbwoJCWV2YWwgInZhbD1cJHskdi19IgoJCSMgc2hlbGxjaGVjayBkaXNhYmxlPVNDMjE1NCAjIHZhbCBpcyBzZXQgYnkgdGhlIGV2YWwKCQljYXNlICR2YWwgaW4KCQknJyB8IConIicqIHwgKiclJyopIDs7CgkJKikgcHJpbnRmICdTZXRFbnYgIiVzPSVzIlxuJyAiJHYiICIkdmFsIiA7OwoJCWVzYWMKCWRvbmUKfSA+IiRkaXIvc3NoZF9jb25maWciCmlmIFsgIiQoaWQgLXUpIiA9IDAgXTsgdGhlbgoJbWtkaXIgLXAgL3J1bi9zc2hkIDI+L2Rldi9udWxsICMgcHJpdmlsZWdlIHNlcGFyYXRpb24gZGlyZWN0b3J5CmZpCgojIEV2ZXJ5IE1QSUpvYiB0YXNrJ3MgZmlsZXMsIGFzIHRoZSBvcGVyYXRvcidzIENvbmZpZ01hcCBoZWxkIHRoZW0uCmlmIFsgLW4gIiR7Sk9CU0hJRlRfTVBJX0hPU1RGSUxFOi19IiBdOyB0aGVuCgltZGlyPSR7Sk9CU0hJRlRfTVBJX0RJUjo/fQoJbWtkaXIgLXAgIiRtZGlyIiB8fCBmYWlsICJjYW5ub3QgbWFrZSAkbWRpciIKCSMgcHJpdmF0ZTogb25seSB0aGlzIHVzZXIncyB0YXNrcyByZWFkIGl0IChTbHVybSBtYWRlIGl0IDA3MDAgYWxyZWFkeSkKCWNobW9kIDcwMCAiJG1kaXIiIHx8IGZhaWwgImNhbm5vdCBwcm90ZWN0ICRtZGlyIgoJIyBzaGVsbGNoZWNrIGRpc2FibGU9U0MyMDE1ICMgZmFpbCBleGl0cwoJcHJpbnRmICclc1xuJyAiJEpPQlNISUZUX01QSV9IT1NURklMRSIgfCB0ciAnLCcgJ1xuJyA+IiRtZGlyL2hvc3RmaWxlLnRtcC4kJCIgJiYgbXYgLWYgIiRtZGlyL2hvc3RmaWxlLnRtcC4kJCIgIiRtZGlyL2hvc3RmaWxlIiB8fAoJCWZhaWwgImNhbm5vdCB3cml0ZSAkbWRpci9ob3N0ZmlsZSIKCSMga3ViZXhlYy5zaCB3YXMgYGt1YmVjdGwgZXhlYyA8cG9kPiAtLSAvYmluL3NoIC1jICIkKiJgOyBzc2ggcnVucyB0aGUKCSMgc2FtZSBjb21tYW5kIGxpbmUgb24gdGhlIHNhbWUgcG9kLiBUaGUgc2FtZSB0ZXh0IGluIGV2ZXJ5IHRhc2sgKHRhc2tzCgkjIG9uIG9uZSBob3N0IHNoYXJlIHRoZSBkaXJlY3RvcnkpOiB0aGUgc3NoIG9uIFBBVEggaXMgZWFjaCB0YXNrJ3Mgb3duLgoJIyBzaGVsbGNoZWNrIGRpc2FibGU9U0MyMDE1ICMgZmFpbCBleGl0cwoJcHJpbnRmICcjIS9iaW4vc2hcbmV4ZWMgc3NoICIkQCJcbicgPiIkbWRpci9rdWJleGVjLnNoLnRtcC4kJCIgJiYKCQljaG1vZCA3NTUgIiRtZGlyL2t1YmV4ZWMuc2gudG1wLiQkIiAmJiBtdiAtZiAiJG1kaXIva3ViZXhlYy5zaC50bXAuJCQiICIkbWRpci9rdWJleGVjLnNoIiB8fAoJCWZhaWwgImNhbm5vdCB3cml0ZSAkbWRpci9rdWJleGVjLnNoIgoJY2htb2QgNjQ0ICIkbWRpci9ob3N0ZmlsZSIKZmkKCiIkc3NoZCIgLXQgLWYgIiRkaXIvc3NoZF9jb25maWciIHx8IGZhaWwgInNzaGQgcmVqZWN0cyBpdHMgY29uZmlndXJhdGlvbiAkZGlyL3NzaGRfY29uZmlnIgppZiBbICIkaWRsZSIgPSAxIF07IHRoZW4KCWV4ZWMgIiRzc2hkIiAtRCAtZSAtZiAiJGRpci9zc2hkX2NvbmZpZyIKZmkKIyBUaGUgc3NoZCBsaXZlcyBhcyBsb25nIGFzIHRoZSBjb21tYW5kOiBhIHdhdGNoZXIgc3RvcHMgaXQgb25jZSB0aGUKIyBwcm9jZXNzIHRoYXQgYmVjb21lcyB0aGUgY29tbWFuZCAodGhpcyBzaGVsbCdzIHBpZCkgaXMgZ29uZSwgd2hhdGV2ZXIKIyB0aGUgdGFyZ2V0J3Mgb3duIGNsZWFuLXVwIGRvZXMuCm1haW49JCQKKAoJIiRzc2hkIiAtRCAtZSAtZiAiJGRpci9zc2hkX2NvbmZpZyIgMj4+IiRkaXIvc3NoZC5sb2ciIDwvZGV2L251bGwgJgoJc3BpZD0kIQoJd2hpbGUga2lsbCAtMCAiJG1haW4iIDI+L2Rldi9udWxsICYmIGtpbGwgLTAgIiRzcGlkIiAyPi9kZXYvbnVsbDsgZG8KCQlzbGVlcCAxCglkb25lCglraWxsICIkc3BpZCIgMj4vZGV2L251bGwKKSA8L2Rldi9udWxsID4vZGV2L251bGwgMj4mMSAmCgppZiBbIC1uICIke0pPQlNISUZUX1NTSF9CQVJSSUVSOi19IiBdOyB0aGVuCgllbmQ9JCgoJChkYXRlICslcykgKyBKT0JTSElGVF9TU0hfQkFSUklFUikpCglmb3IgaCBpbiAkYWxpYXNlczsgZG8KCQl1bnRpbCBzc2ggLW8gQ29ubmVjdFRpbWVvdXQ9MiAtbyBDb25uZWN0aW9uQXR0ZW1wdHM9MSAiJGgiIHRydWUgPC9kZXYvbnVsbCAyPi9kZXYvbnVsbDsgZG8KCQkJaWYgWyAiJChkYXRlICslcykiIC1nZSAiJGVuZCIgXTsgdGhlbgoJCQkJcHJpbnRmICdqb2JzaGlmdCBzc2ggZW11bGF0aW9uOiBzc2hiYXJyaWVyOiAlcyBkb2VzIG5vdCBhbnN3ZXIgYWZ0ZXIgJXNzXG4nICIkaCIgIiRKT0JTSElGVF9TU0hfQkFSUklFUiIgPiYyCgkJCQlleGl0IDI0OQoJCQlmaQoJCQlzbGVlcCAxCgkJZG9uZQoJZG9uZQpmaQojIFVuZGVyIFNsdXJtLCBPcGVuTVBJJ3MgYW5kIEh5ZHJhJ3MgbGF1bmNoZXJzIHdvdWxkIHNlZSB0aGUgYWxsb2NhdGlvbgojIGFuZCBzdGFydCB0aGVpciBkYWVtb25zIHdpdGggc3J1biBvbiBTbHVybSdzIG5vZGVzIGluc3RlYWQgb2YgdGhlIHBlZXJzCiMgdGhlIGNvbW1hbmQgbmFtZXM7IG9uIHRoZSBzb3VyY2UgcGxhdGZvcm0gdGhleSB1c2VkIHNzaCBhbmQgdGhlCiMgaG9zdGZpbGUuIChBIHVzZXIncyBvd24gc2V0dGluZyB3aW5zLikKaWYgWyAtbiAiJHtTTFVSTV9KT0JfSUQ6LX0iIF07IHRoZW4KCU9NUElfTUNBX3BsbT0ke09NUElfTUNBX3BsbTotcnNofQoJT01QSV9NQ0FfcmFzPSR7T01QSV9NQ0FfcmFzOi1ec2x1cm19CglJX01QSV9IWURSQV9CT09UU1RSQVA9JHtJX01QSV9IWURSQV9CT09UU1RSQVA6LXNzaH0KCUhZRFJBX0xBVU5DSEVSPSR7SFlEUkFfTEFVTkNIRVI6LXNzaH0KCWV4cG9ydCBPTVBJX01DQV9wbG0gT01QSV9NQ0FfcmFzIElfTVBJX0hZRFJBX0JPT1RTVFJBUCBIWURSQV9MQVVOQ0hFUgpmaQpbICQjIC1ndCAwIF0gfHwgZXhpdCAwCmV4ZWMgIiRAIgo=\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0755"
      }
      template {
        destination = "secrets/jobshift-ssh-key"
        data        = "{{ with nomadVar \"nomad/jobs/alice~bench\" }}{{ index . \"jobshift_ssh_key\" }}{{ end }}"
        change_mode = "noop"
        once        = true
        perms       = "0600"
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
      name     = "alice-bench-launcher-ssh-0"
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
        args    = ["-c", "n=0\nwhile :; do\n  l=\n  IFS= read -r l < \"$NOMAD_TASK_DIR/barrier\" 2>/dev/null\n  [ \"$l\" = READY ] && exit 0\n  n=$((n+1))\n  if [ \"$n\" -gt 1200 ]; then\n    echo \"jobshift: barrier timeout: after 2m0s not every task of job alice~bench was placed and registered; still missing: $l. Check 'nomad job status alice~bench' for allocations that could not be placed (not enough CPU, memory or GPUs) or that ended early; the timeout is nomad.barrier_timeout in the site config.\" >&2\n    exit 1\n  fi\n  sleep 0.1\ndone\n"]
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
{{- range $s := nomadService "alice-bench-launcher-ssh-0" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "0/" .) true }}{{ end }}{{ end }}{{ end -}}
{{- range $i := loop 1 }}{{ if not (scratch.Key (print "0/idx-" $i)) }}{{ $missing = printf "%s %s-%d" $missing "launcher" $i }}{{ end }}{{ end -}}
{{- range $s := nomadService "alice-bench-worker-ssh-0" }}{{ if eq $s.JobID $job }}{{ range $s.Tags }}{{ scratch.Set (print "1/" .) true }}{{ end }}{{ end }}{{ end -}}
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
        args    = ["$${NOMAD_TASK_DIR}/jobshift-sshemu.sh", "--idle"]
        command = "sh"
      }
      env {
        JOBSHIFT_SSH_DIR = "$${NOMAD_TASK_DIR}/ssh"
        JOBSHIFT_SSH_KEY = "$${NOMAD_SECRETS_DIR}/jobshift-ssh-key"
      }
      resources {
        device "nvidia/gpu" {
          count = 1
        }
      }
      template {
        destination = "local/jobshift.env"
        data        = <<EOT
CUDA_VISIBLE_DEVICES={{ env "NVIDIA_VISIBLE_DEVICES" }}
{{- $h := "" -}}{{- $all := nomadService "alice-bench-launcher-ssh-0" -}}{{- range $i := loop 1 -}}{{- range $all -}}{{- if and (eq .JobID (env "NOMAD_JOB_ID")) (.Tags | contains (printf "idx-%d" $i)) -}}{{- if ne $h "" }}{{ $h = printf "%s," $h }}{{ end -}}{{- $h = printf "%s%s:%d" $h .Address .Port -}}{{- end -}}{{- end -}}{{- end }}
JS_HOSTS_LAUNCHER={{ $h }}
{{- $h := "" -}}{{- $all := nomadService "alice-bench-worker-ssh-0" -}}{{- range $i := loop 2 -}}{{- range $all -}}{{- if and (eq .JobID (env "NOMAD_JOB_ID")) (.Tags | contains (printf "idx-%d" $i)) -}}{{- if ne $h "" }}{{ $h = printf "%s," $h }}{{ end -}}{{- $h = printf "%s%s:%d" $h .Address .Port -}}{{- end -}}{{- end -}}{{- end }}
JS_HOSTS_WORKER={{ $h }}
JS_ROLE=worker
JS_INDEX={{ env "NOMAD_ALLOC_INDEX" }}
EOT
        change_mode = "noop"
        once        = true
        env         = true
      }
      template {
        destination = "local/jobshift-sshemu.sh"
        data        = "{{ base64Decode \"IyBqb2JzaGlmdCBzc2ggZW11bGF0aW9uOiB3aGF0IE9wZW5QQUkncyBzc2ggcnVudGltZSBwbHVnaW4gYW5kCiMgbXBpLW9wZXJhdG9yJ3MgcG9kcyBnYXZlIGV2ZXJ5IHRhc2ssIHJlYnVpbHQgd2l0aG91dCByb290IGFuZCB3aXRob3V0CiMgdG91Y2hpbmcgdGhlIHVzZXIncyB+Ly5zc2g6CiMgICAtIGFuIHNzaGQgb2YgdGhlIHRhc2sncyBvd24gb24gaXRzIGBzc2hgIHBvcnQsIGFjY2VwdGluZyB0aGUgam9iJ3Mga2V5CiMgICAgIChhbmQgdGhlIHVzZXJzc2ggcHVibGljIGtleXMpLCB3aXRoIGEgaG9zdCBrZXkgbWFkZSBoZXJlOwojICAgLSBhbiBzc2ggY2xpZW50IGNvbmZpZyB3aG9zZSBIb3N0IGVudHJpZXMgbWFwIGV2ZXJ5IHBlZXIncyBhbGlhcwojICAgICAoPHJvbGU+LTxpPiwgb3IgdGhlIE1QSUpvYiBwb2QgaG9zdCBuYW1lcykgdG8gaXRzIGFkZHJlc3MgYW5kIHBvcnQsCiMgICAgIHVzZWQgdGhyb3VnaCBhbiBgc3NoYCBlYXJseSBvbiBQQVRILCBzbyBgc3NoIHdvcmtlci0wYCwgbXBpcnVuIGFuZAojICAgICBob3Jvdm9kcnVuIHJlYWNoIHRoZSBwZWVycyB1bmNoYW5nZWQ7CiMgICAtIGZvciBhbiBNUElKb2IgdGFzaywgdGhlIGhvc3RmaWxlIChhbmQga3ViZXhlYy5zaCkgaW4gdGhlIG1waSBkaXI7CiMgICAtIHNzaGJhcnJpZXI6IHRoZSBjb21tYW5kIHN0YXJ0cyBvbmNlIGV2ZXJ5IHBlZXIncyBzc2hkIGFuc3dlcnMuCiMgVGhlbiBpdCBleGVjcyB0aGUgY29tbWFuZCAob3IsIHdpdGggLS1pZGxlLCBydW5zIHRoZSBzc2hkIGluIHRoZQojIGZvcmVncm91bmQ6IGFuIE1QSUpvYiB3b3JrZXIgd2hvc2Ugb3duIGNvbW1hbmQgd2FzIGFuIHNzaGQpLgojCiMgVXNhZ2U6IHNoIHNzaGVtdS5zaCBbLS1pZGxlXSBbLS1dIGNvbW1hbmQgW2FyZ3MuLi5dCiMgRW52aXJvbm1lbnQgKHNlZSBkcml2ZXJzL3NzaGVtdSBhbmQgdHJhbnNsYXRlL2NvbnRyYWN0L3NzaC5nbyk6CiMgICBKT0JTSElGVF9TU0hfSE9TVFMgICAiPGFkZHI+IDxwb3J0PiA8YWxpYXM+Li4uIiwgZW50cmllcyBqb2luZWQgYnkgJywnCiMgICBKT0JTSElGVF9TU0hfU0VMRiAgICB0aGlzIHRhc2sncyBmaXJzdCBhbGlhcwojICAgSk9CU0hJRlRfU1NIX0tFWSAgICAgdGhlIGpvYidzIHByaXZhdGUga2V5IGZpbGUgKGEgc2VjcmV0OyByZWFkIG9ubHkpCiMgICBKT0JTSElGVF9TU0hfRElSICAgICB3aGVyZSB0aGlzIHRhc2sncyBzc2hkIGFuZCBjbGllbnQgZmlsZXMgZ28KIyAgICAgICAgICAgICAgICAgICAgICAgICgiIiA9IGEgbmV3IGRpcmVjdG9yeSB1bmRlciAkVE1QRElSKQojICAgSk9CU0hJRlRfU1NIX1VTRVJLRVlTICBleHRyYSBhdXRob3JpemVkIHB1YmxpYyBrZXlzLCBvbmUgcGVyIGxpbmUKIyAgIEpPQlNISUZUX1NTSF9CQVJSSUVSIHNlY29uZHMgdG8gd2FpdCBmb3IgZXZlcnkgcGVlciAoIiIgPSBubyBiYXJyaWVyKQojICAgSk9CU0hJRlRfTVBJX0RJUiwgSk9CU0hJRlRfTVBJX0hPU1RGSUxFICBob3N0ZmlsZSBsaW5lcyBqb2luZWQgYnkgJywnCiMgRXhpdCBjb2RlczogMjQ5IGJhcnJpZXIgdGltZW91dCAoT3BlblBBSSdzIGNvZGUpLCAxIHNldHVwIGZhaWx1cmUuCgpzZXQgLXUKdW1hc2sgMDc3CgpmYWlsKCkgewoJcHJpbnRmICdqb2JzaGlmdCBzc2ggZW11bGF0aW9uOiAlc1xuJyAiJCoiID4mMgoJZXhpdCAxCn0KCmlkbGU9MAppZiBbICIkezE6LX0iID0gLS1pZGxlIF07IHRoZW4KCWlkbGU9MQoJc2hpZnQKZmkKaWYgWyAiJHsxOi19IiA9IC0tIF07IHRoZW4KCXNoaWZ0CmZpCgpob3N0cz0ke0pPQlNISUZUX1NTSF9IT1NUUzo/fQptZT0ke0pPQlNISUZUX1NTSF9TRUxGOj99CmtleT0ke0pPQlNISUZUX1NTSF9LRVk6P30KZGlyPSR7Sk9CU0hJRlRfU1NIX0RJUjotfQppZiBbIC16ICIkZGlyIiBdOyB0aGVuCglkaXI9JChta3RlbXAgLWQgIiR7VE1QRElSOi0vdG1wfS9qb2JzaGlmdC1zc2guWFhYWFhYIikgfHwgZmFpbCAiY2Fubm90IG1ha2UgYSBkaXJlY3RvcnkgdW5kZXIgJHtUTVBESVI6LS90bXB9IgpmaQpta2RpciAtcCAiJGRpci9iaW4iIHx8IGZhaWwgImNhbm5vdCBtYWtlICRkaXIiCmNobW9kIDcwMCAiJGRpciIgfHwgZmFpbCAiY2Fubm90IHByb3RlY3QgJGRpciIKCnNzaGQ9JHtKT0JTSElGVF9TU0hEOi19CmlmIFsgLXogIiRzc2hkIiBdOyB0aGVuCglzc2hkPSQoY29tbWFuZCAtdiBzc2hkKSB8fCBzc2hkPS91c3Ivc2Jpbi9zc2hkCmZpCnNzaD0kKGNvbW1hbmQgLXYgc3NoKSB8fCBmYWlsICJzc2ggbm90IGZvdW5kIG9uIFBBVEggKGluc3RhbGwgb3BlbnNzaC1jbGllbnQpIgprZXlnZW49JChjb21tYW5kIC12IHNzaC1rZXlnZW4pIHx8IGZhaWwgInNzaC1rZXlnZW4gbm90IGZvdW5kIG9uIFBBVEggKGluc3RhbGwgb3BlbnNzaC1jbGllbnQpIgpbIC14ICIkc3NoZCIgXSB8fCBmYWlsICJzc2hkIG5vdCBmb3VuZCAoaW5zdGFsbCBvcGVuc3NoLXNlcnZlciwgb3Igc2V0IEpPQlNISUZUX1NTSEQpIgp1c2VyPSQoaWQgLXVuKSB8fCBmYWlsICJjYW5ub3QgdGVsbCB0aGUgdXNlciBuYW1lIgoKIyBxIHF1b3RlcyBhIHZhbHVlIGZvciBzc2hfY29uZmlnIC8gc3NoZF9jb25maWcgKCIuLi4iOyAnJScgZG91YmxlZCBmb3IgdGhlCiMgdG9rZW5zIHNzaGQgZXhwYW5kcykuCnEoKSB7IHByaW50ZiAnIiVzIicgIiQocHJpbnRmICclcycgIiQxIiB8IHNlZCAncy8lLyUlL2cnKSI7IH0KIyBzcSBxdW90ZXMgYSB2YWx1ZSBmb3Igc2guCnNxKCkgeyBwcmludGYgIiclcyciICIkKHByaW50ZiAnJXMnICIkMSIgfCBzZWQgInMvJy8nXFxcXCcnL2ciKSI7IH0KCiMgVGhlIGtleSBpcyB1c2VkIHdoZXJlIHRoZSB0YXJnZXQgcHV0IGl0ICgwNjAwKTogbm8gY29weSBvZiBhIHNlY3JldC4KIiRrZXlnZW4iIC15IC1mICIka2V5IiA+IiRkaXIvaWQucHViIiB8fCBmYWlsICJjYW5ub3QgcmVhZCB0aGUgam9iIGtleSAka2V5Igp7CgljYXQgIiRkaXIvaWQucHViIgoJaWYgWyAtbiAiJHtKT0JTSElGVF9TU0hfVVNFUktFWVM6LX0iIF07IHRoZW4KCQlwcmludGYgJyVzXG4nICIkSk9CU0hJRlRfU1NIX1VTRVJLRVlTIgoJZmkKfSA+IiRkaXIvYXV0aG9yaXplZF9rZXlzIgpybSAtZiAiJGRpci9ob3N0X2tleSIgIiRkaXIvaG9zdF9rZXkucHViIgoiJGtleWdlbiIgLXEgLXQgZWQyNTUxOSAtTiAnJyAtZiAiJGRpci9ob3N0X2tleSIgfHwgZmFpbCAiY2Fubm90IG1ha2UgYSBob3N0IGtleSIKCiMgVGhlIGNsaWVudCBjb25maWc6IG9uZSBIb3N0IGJsb2NrIHBlciBwZWVyLCB0aGVuIHRoZSBqb2Itd2lkZSBzZXR0aW5ncy4KIyAoQSBmdW5jdGlvbiwgc28gYHNldCAtLWAgbGVhdmVzIHRoZSBjb21tYW5kJ3MgYXJndW1lbnRzIGFsb25lLikKaG9zdF9ibG9ja3MoKSB7CglvbGRfaWZzPSRJRlMKCUlGUz0sCglmb3IgZW50cnkgaW4gJGhvc3RzOyBkbwoJCUlGUz0nICcKCQkjIHNoZWxsY2hlY2sgZGlzYWJsZT1TQzIwODYgIyB0aGUgZW50cnkgaXMgc3BsaXQgb24gcHVycG9zZQoJCXNldCAtLSAkZW50cnkKCQlJRlM9LAoJCVsgJCMgLWdlIDMgXSB8fCBmYWlsICJiYWQgaG9zdCBlbnRyeSAnJGVudHJ5JyIKCQlhPSQxIHA9JDIKCQlzaGlmdCAyCgkJSUZTPScgJyAjICIkKiIgam9pbnMgd2l0aCB0aGUgZmlyc3QgY2hhcmFjdGVyIG9mIElGUwoJCXByaW50ZiAnSG9zdCAlc1xuXHRIb3N0TmFtZSAlc1xuXHRQb3J0ICVzXG4nICIkKiIgIiRhIiAiJHAiID4+IiRkaXIvc3NoX2NvbmZpZyIKCQlJRlM9LAoJCWFsaWFzZXM9IiRhbGlhc2VzICQxIgoJCWZvciBuIGluICIkQCI7IGRvCgkJCWlmIFsgIiRuIiA9ICIkbWUiIF07IHRoZW4KCQkJCWFkZHI9JGEgcG9ydD0kcAoJCQlmaQoJCWRvbmUKCWRvbmUKCUlGUz0kb2xkX2lmcwp9CmFkZHI9JycgcG9ydD0nJyBhbGlhc2VzPScnCjogPiIkZGlyL3NzaF9jb25maWciCmhvc3RfYmxvY2tzClsgLW4gIiRwb3J0IiBdIHx8IGZhaWwgInRoaXMgdGFzayAoJG1lKSBpcyBub3QgaW4gSk9CU0hJRlRfU1NIX0hPU1RTIgpjYXQgPj4iJGRpci9zc2hfY29uZmlnIiA8PEVPRgpIb3N0ICoKCVVzZXIgJHVzZXIKCUlkZW50aXR5RmlsZSAkKHEgIiRrZXkiKQoJSWRlbnRpdGllc09ubHkgeWVzCglTdHJpY3RIb3N0S2V5Q2hlY2tpbmcgbm8KCVVzZXJLbm93bkhvc3RzRmlsZSAvZGV2L251bGwKCUdsb2JhbEtub3duSG9zdHNGaWxlIC9kZXYvbnVsbAoJTG9nTGV2ZWwgRVJST1IKCUJhdGNoTW9kZSB5ZXMKCUNvbm5lY3Rpb25BdHRlbXB0cyAxMApFT0YKcHJpbnRmICcjIS9iaW4vc2hcbmV4ZWMgJXMgLUYgJXMgIiRAIlxuJyAiJChzcSAiJHNzaCIpIiAiJChzcSAiJGRpci9zc2hfY29uZmlnIikiID4iJGRpci9iaW4vc3NoIgpjaG1vZCA3MDAgIiRkaXIvYmluL3NzaCIKUEFUSD0kZGlyL2JpbjokUEFUSApleHBvcnQgUEFUSAoKIyBUaGUgc3NoZDoga2V5IGxvZ2lucyBvbmx5LCBmb3IgdGhpcyB1c2VyLCB3aXRoIHRoZSB0YXNrJ3Mgc2VhcmNoIHBhdGhzCiMgKGFuIHNzaCBzZXNzaW9uIHN0YXJ0cyB3aXRoIGEgZnJlc2ggZW52aXJvbm1lbnQ7IE9wZW5QQUkgY29waWVkIGl0cwojIHZhcmlhYmxlcyB0byAvZXRjL2Vudmlyb25tZW50IGZvciB0aGUgc2FtZSByZWFzb24pLgp7CglwcmludGYgJ1BvcnQgJXNcbkxpc3RlbkFkZHJlc3MgJXNcbicgIiRwb3J0IiAiJGFkZHIiCglwcmludGYgJ0hvc3RLZXkgJXNcblBpZEZpbGUgJXNcbkF1dGhvcml6ZWRLZXlzRmlsZSAlc1xuJyAiJChxICIkZGlyL2hvc3Rfa2V5IikiICIkKHEgIiRkaXIvc3NoZC5waWQiKSIgIiQocSAiJGRpci9hdXRob3JpemVkX2tleXMiKSIKCXByaW50ZiAnU3RyaWN0TW9kZXMgbm9cblVzZVBBTSBub1xuUGFzc3dvcmRBdXRoZW50aWNhdGlvbiBub1xuS2JkSW50ZXJhY3RpdmVBdXRoZW50aWNhdGlvbiBub1xuJwoJcHJpbnRmICdQdWJrZXlBdXRoZW50aWNhdGlvbiB5ZXNcblBlcm1pdFJvb3RMb2dpbiBwcm9oaWJpdC1wYXNzd29yZFxuQWxsb3dVc2VycyAlc1xuJyAiJHVzZXIiCglwcmludGYgJ1ByaW50TW90ZCBub1xuWDExRm9yd2FyZGluZyBub1xuTWF4U3RhcnR1cHMgMTAwOjMwOjIwMFxuTWF4U2Vzc2lvbnMgMTAwXG4nCglmb3IgdiBpbiBQQVRIIExEX0xJQlJBUllfUEFUSCBQWVRIT05QQVRIIE9NUElfQUxMT1dfUlVOX0FTX1JPT1QgT01QSV9BTExPV19SVU5fQVNfUk9PVF9DT05GSVJNOyBkbwoJCWV2YWwgInZhbD1cJHskdi19IgoJCSMgc2hlbGxjaGVjayBkaXNhYmxlPVNDMjE1NCAjIHZhbCBpcyBzZXQgYnkgdGhlIGV2YWwKCQljYXNlICR2YWwgaW4KCQknJyB8IConIicqIHwgKiclJyopIDs7CgkJKikgcHJpbnRmICdTZXRFbnYgIiVzPSVzIlxuJyAiJHYiICIkdmFsIiA7OwoJCWVzYWMKCWRvbmUKfSA+IiRkaXIvc3NoZF9jb25maWciCmlmIFsgIiQoaWQgLXUpIiA9IDAgXTsgdGhlbgoJbWtkaXIgLXAgL3J1bi9zc2hkIDI+L2Rldi9udWxsICMgcHJpdmlsZWdlIHNlcGFyYXRpb24gZGlyZWN0b3J5CmZpCgojIEV2ZXJ5IE1QSUpvYiB0YXNrJ3MgZmlsZXMsIGFzIHRoZSBvcGVyYXRvcidzIENvbmZpZ01hcCBoZWxkIHRoZW0uCmlmIFsgLW4gIiR7Sk9CU0hJRlRfTVBJX0hPU1RGSUxFOi19IiBdOyB0aGVuCgltZGlyPSR7Sk9CU0hJRlRfTVBJX0RJUjo/fQoJbWtkaXIgLXAgIiRtZGlyIiB8fCBmYWlsICJjYW5ub3QgbWFrZSAkbWRpciIKCSMgcHJpdmF0ZTogb25seSB0aGlzIHVzZXIncyB0YXNrcyByZWFkIGl0IChTbHVybSBtYWRlIGl0IDA3MDAgYWxyZWFkeSkKCWNobW9kIDcwMCAiJG1kaXIiIHx8IGZhaWwgImNhbm5vdCBwcm90ZWN0ICRtZGlyIgoJIyBzaGVsbGNoZWNrIGRpc2FibGU9U0MyMDE1ICMgZmFpbCBleGl0cwoJcHJpbnRmICclc1xuJyAiJEpPQlNISUZUX01QSV9IT1NURklMRSIgfCB0ciAnLCcgJ1xuJyA+IiRtZGlyL2hvc3RmaWxlLnRtcC4kJCIgJiYgbXYgLWYgIiRtZGlyL2hvc3RmaWxlLnRtcC4kJCIgIiRtZGlyL2hvc3RmaWxlIiB8fAoJCWZhaWwgImNhbm5vdCB3cml0ZSAkbWRpci9ob3N0ZmlsZSIKCSMga3ViZXhlYy5zaCB3YXMgYGt1YmVjdGwgZXhlYyA8cG9kPiAtLSAvYmluL3NoIC1jICIkKiJgOyBzc2ggcnVucyB0aGUKCSMgc2FtZSBjb21tYW5kIGxpbmUgb24gdGhlIHNhbWUgcG9kLiBUaGUgc2FtZSB0ZXh0IGluIGV2ZXJ5IHRhc2sgKHRhc2tzCgkjIG9uIG9uZSBob3N0IHNoYXJlIHRoZSBkaXJlY3RvcnkpOiB0aGUgc3NoIG9uIFBBVEggaXMgZWFjaCB0YXNrJ3Mgb3duLgoJIyBzaGVsbGNoZWNrIGRpc2FibGU9U0MyMDE1ICMgZmFpbCBleGl0cwoJcHJpbnRmICcjIS9iaW4vc2hcbmV4ZWMgc3NoICIkQCJcbicgPiIkbWRpci9rdWJleGVjLnNoLnRtcC4kJCIgJiYKCQljaG1vZCA3NTUgIiRtZGlyL2t1YmV4ZWMuc2gudG1wLiQkIiAmJiBtdiAtZiAiJG1kaXIva3ViZXhlYy5zaC50bXAuJCQiICIkbWRpci9rdWJleGVjLnNoIiB8fAoJCWZhaWwgImNhbm5vdCB3cml0ZSAkbWRpci9rdWJleGVjLnNoIgoJY2htb2QgNjQ0ICIkbWRpci9ob3N0ZmlsZSIKZmkKCiIkc3NoZCIgLXQgLWYgIiRkaXIvc3NoZF9jb25maWciIHx8IGZhaWwgInNzaGQgcmVqZWN0cyBpdHMgY29uZmlndXJhdGlvbiAkZGlyL3NzaGRfY29uZmlnIgppZiBbICIkaWRsZSIgPSAxIF07IHRoZW4KCWV4ZWMgIiRzc2hkIiAtRCAtZSAtZiAiJGRpci9zc2hkX2NvbmZpZyIKZmkKIyBUaGUgc3NoZCBsaXZlcyBhcyBsb25nIGFzIHRoZSBjb21tYW5kOiBhIHdhdGNoZXIgc3RvcHMgaXQgb25jZSB0aGUKIyBwcm9jZXNzIHRoYXQgYmVjb21lcyB0aGUgY29tbWFuZCAodGhpcyBzaGVsbCdzIHBpZCkgaXMgZ29uZSwgd2hhdGV2ZXIKIyB0aGUgdGFyZ2V0J3Mgb3duIGNsZWFuLXVwIGRvZXMuCm1haW49JCQKKAoJIiRzc2hkIiAtRCAtZSAtZiAiJGRpci9zc2hkX2NvbmZpZyIgMj4+IiRkaXIvc3NoZC5sb2ciIDwvZGV2L251bGwgJgoJc3BpZD0kIQoJd2hpbGUga2lsbCAtMCAiJG1haW4iIDI+L2Rldi9udWxsICYmIGtpbGwgLTAgIiRzcGlkIiAyPi9kZXYvbnVsbDsgZG8KCQlzbGVlcCAxCglkb25lCglraWxsICIkc3BpZCIgMj4vZGV2L251bGwKKSA8L2Rldi9udWxsID4vZGV2L251bGwgMj4mMSAmCgppZiBbIC1uICIke0pPQlNISUZUX1NTSF9CQVJSSUVSOi19IiBdOyB0aGVuCgllbmQ9JCgoJChkYXRlICslcykgKyBKT0JTSElGVF9TU0hfQkFSUklFUikpCglmb3IgaCBpbiAkYWxpYXNlczsgZG8KCQl1bnRpbCBzc2ggLW8gQ29ubmVjdFRpbWVvdXQ9MiAtbyBDb25uZWN0aW9uQXR0ZW1wdHM9MSAiJGgiIHRydWUgPC9kZXYvbnVsbCAyPi9kZXYvbnVsbDsgZG8KCQkJaWYgWyAiJChkYXRlICslcykiIC1nZSAiJGVuZCIgXTsgdGhlbgoJCQkJcHJpbnRmICdqb2JzaGlmdCBzc2ggZW11bGF0aW9uOiBzc2hiYXJyaWVyOiAlcyBkb2VzIG5vdCBhbnN3ZXIgYWZ0ZXIgJXNzXG4nICIkaCIgIiRKT0JTSElGVF9TU0hfQkFSUklFUiIgPiYyCgkJCQlleGl0IDI0OQoJCQlmaQoJCQlzbGVlcCAxCgkJZG9uZQoJZG9uZQpmaQojIFVuZGVyIFNsdXJtLCBPcGVuTVBJJ3MgYW5kIEh5ZHJhJ3MgbGF1bmNoZXJzIHdvdWxkIHNlZSB0aGUgYWxsb2NhdGlvbgojIGFuZCBzdGFydCB0aGVpciBkYWVtb25zIHdpdGggc3J1biBvbiBTbHVybSdzIG5vZGVzIGluc3RlYWQgb2YgdGhlIHBlZXJzCiMgdGhlIGNvbW1hbmQgbmFtZXM7IG9uIHRoZSBzb3VyY2UgcGxhdGZvcm0gdGhleSB1c2VkIHNzaCBhbmQgdGhlCiMgaG9zdGZpbGUuIChBIHVzZXIncyBvd24gc2V0dGluZyB3aW5zLikKaWYgWyAtbiAiJHtTTFVSTV9KT0JfSUQ6LX0iIF07IHRoZW4KCU9NUElfTUNBX3BsbT0ke09NUElfTUNBX3BsbTotcnNofQoJT01QSV9NQ0FfcmFzPSR7T01QSV9NQ0FfcmFzOi1ec2x1cm19CglJX01QSV9IWURSQV9CT09UU1RSQVA9JHtJX01QSV9IWURSQV9CT09UU1RSQVA6LXNzaH0KCUhZRFJBX0xBVU5DSEVSPSR7SFlEUkFfTEFVTkNIRVI6LXNzaH0KCWV4cG9ydCBPTVBJX01DQV9wbG0gT01QSV9NQ0FfcmFzIElfTVBJX0hZRFJBX0JPT1RTVFJBUCBIWURSQV9MQVVOQ0hFUgpmaQpbICQjIC1ndCAwIF0gfHwgZXhpdCAwCmV4ZWMgIiRAIgo=\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0755"
      }
      template {
        destination = "secrets/jobshift-ssh-key"
        data        = "{{ with nomadVar \"nomad/jobs/alice~bench\" }}{{ index . \"jobshift_ssh_key\" }}{{ end }}"
        change_mode = "noop"
        once        = true
        perms       = "0600"
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
      name     = "alice-bench-worker-ssh-0"
      tags     = ["idx-$${NOMAD_ALLOC_INDEX}"]
      port     = "ssh_0"
      provider = "nomad"
    }
  }
  meta {
    jobshift_attempt = "0"
    jobshift_format  = "mpijob"
    jobshift_name    = "bench"
    jobshift_policy  = "{\"name\":\"bench\",\"format\":\"mpijob\",\"version\":\"kubeflow.org/v1\",\"completion\":{\"kind\":\"mpi\",\"pos\":{}},\"retry\":{\"jobRetryCount\":0,\"gangAllocation\":false,\"backoffLimit\":2,\"cleanPodPolicy\":\"All\",\"pos\":{}},\"roles\":[{\"name\":\"launcher\",\"group\":\"launcher\",\"replicaType\":\"launcher\",\"instances\":1,\"minFailed\":null,\"minSucceeded\":null,\"restartPolicy\":\"Never\"},{\"name\":\"worker\",\"group\":\"worker\",\"replicaType\":\"worker\",\"instances\":2,\"minFailed\":null,\"minSucceeded\":null,\"restartPolicy\":\"OnFailure\"}]}"
    jobshift_source  = "mpi_v1.yaml"
    jobshift_user    = "alice"
    jobshift_version = "0.1.0-dev"
  }
}
