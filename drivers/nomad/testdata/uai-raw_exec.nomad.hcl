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
        args    = ["-c", "set -o errexit -o nounset -o pipefail\npython3 train.py\n", "user.sh"]
        command = "bash"
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
{{/* end of the task's own lines */}}
{{- $me := env "NOMAD_ALLOC_INDEX" -}}
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
{{- $me := env "NOMAD_ALLOC_INDEX" -}}
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
