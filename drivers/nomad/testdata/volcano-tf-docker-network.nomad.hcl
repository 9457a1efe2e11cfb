# jobshift: watched: what jobshift run submits; jobshift convert without -watched writes the shape for nomad job run
#
# shape: watched (jobshift run or the controller follows it); rendezvous snapshot
# group ps (docker): env template over the snapshot; judged by watcher; docker network jobshift
#   task main > stop group > log drain tail > command
# group worker (docker): env template over the snapshot; judged by watcher; docker network jobshift
#   task main > stop group > log drain tail > command
# why: rendezvous snapshot: the watcher writes every task's address once all are placed
# why: no distinct_hosts: role ps listens on a port of its own at the names of /etc/volcano/*.host, and every task has a network of its own in Docker network jobshift
# why (ps): no nomad-env: the site names no helper (nomad.helper, nomad.env_helper)
# why (ps): env: template over the snapshot: an image need not have /bin/sh
# why (ps): no task namespace: driver docker runs an image (its own host name); platform files are volumes from the task directory
# why (ps): log drain: driver docker's logger stops when the container exits (hashicorp/nomad#6931): the command runs under a shell that waits a second before the container ends, so its output is in the task's log
# why (ps): docker network jobshift (nomad.docker_network): the container has a network of its own there, its pod's names as network_aliases, which Docker's DNS resolves for its peers; its /etc/hosts names only itself (hostname)
# why (worker): no nomad-env: the site names no helper (nomad.helper, nomad.env_helper)
# why (worker): env: template over the snapshot: an image need not have /bin/sh
# why (worker): no task namespace: driver docker runs an image (its own host name); platform files are volumes from the task directory
# why (worker): log drain: driver docker's logger stops when the container exits (hashicorp/nomad#6931): the command runs under a shell that waits a second before the container ends, so its output is in the task's log
# why (worker): docker network jobshift (nomad.docker_network): the container has a network of its own there, its pod's names as network_aliases, which Docker's DNS resolves for its peers; its /etc/hosts names only itself (hostname)

job "alice~tensorflow-dist" {
  type = "batch"
  group "ps" {
    count = 1
    task "main" {
      driver      = "docker"
      kill_signal = "SIGTERM"
      config {
        args            = ["-c", "_g_stop=0\n_g_child=\n_g_setsid=\ncommand -v setsid >/dev/null 2>&1 && _g_setsid=setsid\ntrap '_g_stop=1; [ -n \"$_g_child\" ] && { kill -TERM \"-$_g_child\" 2>/dev/null || kill -TERM \"$_g_child\" 2>/dev/null; }' TERM INT\n$_g_setsid \"$@\" &\n_g_child=$!\n[ \"$_g_stop\" = 1 ] && { kill -TERM \"-$_g_child\" 2>/dev/null || kill -TERM \"$_g_child\" 2>/dev/null; }\nwait \"$_g_child\"\n_g_rc=$?\nwhile kill -0 \"$_g_child\" 2>/dev/null; do\n\twait \"$_g_child\"\n\t_g_rc=$?\ndone\nif [ \"$_g_stop\" = 1 ]; then\n\twhile kill -0 \"-$_g_child\" 2>/dev/null; do sleep 0.1; done\nfi\nsleep 1\nexit \"$_g_rc\"\n", "jobshift-group", "/bin/sh", "$${NOMAD_TASK_DIR}/jobshift-argv.sh"]
        entrypoint      = ["/bin/sh"]
        hostname        = "tensorflow-dist-ps-$${NOMAD_ALLOC_INDEX}"
        image           = "volcanosh/dist-mnist-tf-example:0.0.1"
        network_aliases = ["tensorflow-dist-ps-$${NOMAD_ALLOC_INDEX}", "tensorflow-dist-ps-$${NOMAD_ALLOC_INDEX}.tensorflow-dist"]
        network_mode    = "jobshift"
        ports           = ["tfjob_port"]
        volumes         = ["local/jobshift-files/0:/etc/volcano/ps.host:ro", "local/jobshift-files/1:/etc/volcano/VC_PS_HOSTS:ro", "local/jobshift-files/2:/etc/volcano/VC_PS_NUM:ro", "local/jobshift-files/3:/etc/volcano/worker.host:ro", "local/jobshift-files/4:/etc/volcano/VC_WORKER_HOSTS:ro", "local/jobshift-files/5:/etc/volcano/VC_WORKER_NUM:ro"]
      }
      resources {
      }
      template {
        destination = "local/jobshift.env"
        data        = <<EOT
{{ $me := env "NOMAD_ALLOC_INDEX" -}}
{{- with nomadVar "nomad/jobs/alice~tensorflow-dist/ps" }}{{ $v := .ItemsMap -}}
{{- if ne (print (index $v "attempt")) (env "NOMAD_META_jobshift_attempt") }}jobshift-contract: topology snapshot nomad/jobs/alice~tensorflow-dist/ps is of attempt {{ index $v "attempt" }}, not of this task's attempt {{ env "NOMAD_META_jobshift_attempt" }}
{{ end -}}
{{- $mi := parseInt $me -}}
{{- if not (regexMatch "^(?:[A-Za-z0-9.:_-]+(?: [A-Za-z0-9.:_-]+)*)?$" (print (index $v "a0"))) }}jobshift-contract: topology snapshot nomad/jobs/alice~tensorflow-dist/ps item a0: not a list of addresses
{{ end -}}
{{- $a0 := split " " (print (index $v "a0")) -}}
{{- if not (regexMatch "^(?:[A-Za-z0-9.:_-]+(?: [A-Za-z0-9.:_-]+)*)?$" (print (index $v "a1"))) }}jobshift-contract: topology snapshot nomad/jobs/alice~tensorflow-dist/ps item a1: not a list of addresses
{{ end -}}
{{- $a1 := split " " (print (index $v "a1")) -}}
{{- if not (regexMatch "^(?:(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})(?: (?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}))*)?$" (print (index $v "p0"))) }}jobshift-contract: topology snapshot nomad/jobs/alice~tensorflow-dist/ps item p0: not a list of port numbers
{{ end -}}
{{- $p0 := split " " (print (index $v "p0")) -}}
{{- if not (regexMatch "^(?:(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})(?: (?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}))*)?$" (print (index $v "p1"))) }}jobshift-contract: topology snapshot nomad/jobs/alice~tensorflow-dist/ps item p1: not a list of port numbers
{{ end -}}
{{- $p1 := split " " (print (index $v "p1")) -}}
VK_TASK_INDEX={{ $me | toJSON }}
VC_TASK_INDEX={{ $me | toJSON }}
VC_PS_HOSTS={{ "tensorflow-dist-ps-0.tensorflow-dist" | toJSON }}
VC_PS_NUM={{ "1" | toJSON }}
VC_WORKER_HOSTS={{ "tensorflow-dist-worker-0.tensorflow-dist,tensorflow-dist-worker-1.tensorflow-dist" | toJSON }}
VC_WORKER_NUM={{ "2" | toJSON }}
{{- end }}
EOT
        change_mode = "noop"
        once        = true
        env         = true
      }
      template {
        destination = "local/jobshift-argv.sh"
        data        = "{{ base64Decode \"ZXhlYyAnc2gnICctYycgJ1BTX0hPU1Q9YGNhdCAvZXRjL3ZvbGNhbm8vcHMuaG9zdCB8IHNlZCAnXCcncy8kLyY6MjIyMi9nJ1wnJyB8IHNlZCAnXCcncy9eLyIvO3MvJC8iLydcJycgfCB0ciAiXG4iICIsImA7CldPUktFUl9IT1NUPWBjYXQgL2V0Yy92b2xjYW5vL3dvcmtlci5ob3N0IHwgc2VkICdcJydzLyQvJjoyMjIyL2cnXCcnIHwgc2VkICdcJydzL14vIi87cy8kLyIvJ1wnJyB8IHRyICJcbiIgIiwiYDsKZXhwb3J0IFRGX0NPTkZJRz17XCJjbHVzdGVyXCI6e1wicHNcIjpbJHtQU19IT1NUfV0sXCJ3b3JrZXJcIjpbJHtXT1JLRVJfSE9TVH1dfSxcInRhc2tcIjp7XCJ0eXBlXCI6XCJwc1wiLFwiaW5kZXhcIjoke1ZLX1RBU0tfSU5ERVh9fSxcImVudmlyb25tZW50XCI6XCJjbG91ZFwifTsKcHl0aG9uMyBleGFtcGxlcy9tZXNoLnB5IHRmY29uZmlnCicK\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0755"
      }
      template {
        destination = "local/jobshift-files/0"
        data        = "{{ base64Decode \"dGVuc29yZmxvdy1kaXN0LXBzLTAudGVuc29yZmxvdy1kaXN0\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0644"
      }
      template {
        destination = "local/jobshift-files/1"
        data        = "{{ base64Decode \"dGVuc29yZmxvdy1kaXN0LXBzLTAudGVuc29yZmxvdy1kaXN0\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0644"
      }
      template {
        destination = "local/jobshift-files/2"
        data        = "{{ base64Decode \"MQ==\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0644"
      }
      template {
        destination = "local/jobshift-files/3"
        data        = "{{ base64Decode \"dGVuc29yZmxvdy1kaXN0LXdvcmtlci0wLnRlbnNvcmZsb3ctZGlzdAp0ZW5zb3JmbG93LWRpc3Qtd29ya2VyLTEudGVuc29yZmxvdy1kaXN0\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0644"
      }
      template {
        destination = "local/jobshift-files/4"
        data        = "{{ base64Decode \"dGVuc29yZmxvdy1kaXN0LXdvcmtlci0wLnRlbnNvcmZsb3ctZGlzdCx0ZW5zb3JmbG93LWRpc3Qtd29ya2VyLTEudGVuc29yZmxvdy1kaXN0\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0644"
      }
      template {
        destination = "local/jobshift-files/5"
        data        = "{{ base64Decode \"Mg==\" }}"
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
      port "tfjob_port" {
      }
    }
    meta {
      jobshift_env            = "template over the snapshot"
      jobshift_judges         = "watcher"
      jobshift_role           = "ps"
      jobshift_snapshot_ports = "0:tfjob_port"
    }
  }
  group "worker" {
    count = 2
    task "main" {
      driver      = "docker"
      kill_signal = "SIGTERM"
      config {
        args            = ["-c", "_g_stop=0\n_g_child=\n_g_setsid=\ncommand -v setsid >/dev/null 2>&1 && _g_setsid=setsid\ntrap '_g_stop=1; [ -n \"$_g_child\" ] && { kill -TERM \"-$_g_child\" 2>/dev/null || kill -TERM \"$_g_child\" 2>/dev/null; }' TERM INT\n$_g_setsid \"$@\" &\n_g_child=$!\n[ \"$_g_stop\" = 1 ] && { kill -TERM \"-$_g_child\" 2>/dev/null || kill -TERM \"$_g_child\" 2>/dev/null; }\nwait \"$_g_child\"\n_g_rc=$?\nwhile kill -0 \"$_g_child\" 2>/dev/null; do\n\twait \"$_g_child\"\n\t_g_rc=$?\ndone\nif [ \"$_g_stop\" = 1 ]; then\n\twhile kill -0 \"-$_g_child\" 2>/dev/null; do sleep 0.1; done\nfi\nsleep 1\nexit \"$_g_rc\"\n", "jobshift-group", "/bin/sh", "$${NOMAD_TASK_DIR}/jobshift-argv.sh"]
        entrypoint      = ["/bin/sh"]
        hostname        = "tensorflow-dist-worker-$${NOMAD_ALLOC_INDEX}"
        image           = "volcanosh/dist-mnist-tf-example:0.0.1"
        network_aliases = ["tensorflow-dist-worker-$${NOMAD_ALLOC_INDEX}", "tensorflow-dist-worker-$${NOMAD_ALLOC_INDEX}.tensorflow-dist"]
        network_mode    = "jobshift"
        ports           = ["tfjob_port"]
        volumes         = ["local/jobshift-files/0:/etc/volcano/ps.host:ro", "local/jobshift-files/1:/etc/volcano/VC_PS_HOSTS:ro", "local/jobshift-files/2:/etc/volcano/VC_PS_NUM:ro", "local/jobshift-files/3:/etc/volcano/worker.host:ro", "local/jobshift-files/4:/etc/volcano/VC_WORKER_HOSTS:ro", "local/jobshift-files/5:/etc/volcano/VC_WORKER_NUM:ro"]
      }
      resources {
      }
      template {
        destination = "local/jobshift.env"
        data        = <<EOT
{{ $me := env "NOMAD_ALLOC_INDEX" -}}
{{- with nomadVar "nomad/jobs/alice~tensorflow-dist/worker" }}{{ $v := .ItemsMap -}}
{{- if ne (print (index $v "attempt")) (env "NOMAD_META_jobshift_attempt") }}jobshift-contract: topology snapshot nomad/jobs/alice~tensorflow-dist/worker is of attempt {{ index $v "attempt" }}, not of this task's attempt {{ env "NOMAD_META_jobshift_attempt" }}
{{ end -}}
{{- $mi := parseInt $me -}}
{{- if not (regexMatch "^(?:[A-Za-z0-9.:_-]+(?: [A-Za-z0-9.:_-]+)*)?$" (print (index $v "a0"))) }}jobshift-contract: topology snapshot nomad/jobs/alice~tensorflow-dist/worker item a0: not a list of addresses
{{ end -}}
{{- $a0 := split " " (print (index $v "a0")) -}}
{{- if not (regexMatch "^(?:[A-Za-z0-9.:_-]+(?: [A-Za-z0-9.:_-]+)*)?$" (print (index $v "a1"))) }}jobshift-contract: topology snapshot nomad/jobs/alice~tensorflow-dist/worker item a1: not a list of addresses
{{ end -}}
{{- $a1 := split " " (print (index $v "a1")) -}}
{{- if not (regexMatch "^(?:(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})(?: (?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}))*)?$" (print (index $v "p0"))) }}jobshift-contract: topology snapshot nomad/jobs/alice~tensorflow-dist/worker item p0: not a list of port numbers
{{ end -}}
{{- $p0 := split " " (print (index $v "p0")) -}}
{{- if not (regexMatch "^(?:(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})(?: (?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}))*)?$" (print (index $v "p1"))) }}jobshift-contract: topology snapshot nomad/jobs/alice~tensorflow-dist/worker item p1: not a list of port numbers
{{ end -}}
{{- $p1 := split " " (print (index $v "p1")) -}}
VK_TASK_INDEX={{ $me | toJSON }}
VC_TASK_INDEX={{ $me | toJSON }}
VC_PS_HOSTS={{ "tensorflow-dist-ps-0.tensorflow-dist" | toJSON }}
VC_PS_NUM={{ "1" | toJSON }}
VC_WORKER_HOSTS={{ "tensorflow-dist-worker-0.tensorflow-dist,tensorflow-dist-worker-1.tensorflow-dist" | toJSON }}
VC_WORKER_NUM={{ "2" | toJSON }}
{{- end }}
EOT
        change_mode = "noop"
        once        = true
        env         = true
      }
      template {
        destination = "local/jobshift-argv.sh"
        data        = "{{ base64Decode \"ZXhlYyAnc2gnICctYycgJ1BTX0hPU1Q9YGNhdCAvZXRjL3ZvbGNhbm8vcHMuaG9zdCB8IHNlZCAnXCcncy8kLyY6MjIyMi9nJ1wnJyB8IHNlZCAnXCcncy9eLyIvO3MvJC8iLydcJycgfCB0ciAiXG4iICIsImA7CldPUktFUl9IT1NUPWBjYXQgL2V0Yy92b2xjYW5vL3dvcmtlci5ob3N0IHwgc2VkICdcJydzLyQvJjoyMjIyL2cnXCcnIHwgc2VkICdcJydzL14vIi87cy8kLyIvJ1wnJyB8IHRyICJcbiIgIiwiYDsKZXhwb3J0IFRGX0NPTkZJRz17XCJjbHVzdGVyXCI6e1wicHNcIjpbJHtQU19IT1NUfV0sXCJ3b3JrZXJcIjpbJHtXT1JLRVJfSE9TVH1dfSxcInRhc2tcIjp7XCJ0eXBlXCI6XCJ3b3JrZXJcIixcImluZGV4XCI6JHtWS19UQVNLX0lOREVYfX0sXCJlbnZpcm9ubWVudFwiOlwiY2xvdWRcIn07CnB5dGhvbjMgZXhhbXBsZXMvbWVzaC5weSB0ZmNvbmZpZwonCg==\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0755"
      }
      template {
        destination = "local/jobshift-files/0"
        data        = "{{ base64Decode \"dGVuc29yZmxvdy1kaXN0LXBzLTAudGVuc29yZmxvdy1kaXN0\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0644"
      }
      template {
        destination = "local/jobshift-files/1"
        data        = "{{ base64Decode \"dGVuc29yZmxvdy1kaXN0LXBzLTAudGVuc29yZmxvdy1kaXN0\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0644"
      }
      template {
        destination = "local/jobshift-files/2"
        data        = "{{ base64Decode \"MQ==\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0644"
      }
      template {
        destination = "local/jobshift-files/3"
        data        = "{{ base64Decode \"dGVuc29yZmxvdy1kaXN0LXdvcmtlci0wLnRlbnNvcmZsb3ctZGlzdAp0ZW5zb3JmbG93LWRpc3Qtd29ya2VyLTEudGVuc29yZmxvdy1kaXN0\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0644"
      }
      template {
        destination = "local/jobshift-files/4"
        data        = "{{ base64Decode \"dGVuc29yZmxvdy1kaXN0LXdvcmtlci0wLnRlbnNvcmZsb3ctZGlzdCx0ZW5zb3JmbG93LWRpc3Qtd29ya2VyLTEudGVuc29yZmxvdy1kaXN0\" }}"
        change_mode = "noop"
        once        = true
        perms       = "0644"
      }
      template {
        destination = "local/jobshift-files/5"
        data        = "{{ base64Decode \"Mg==\" }}"
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
      port "tfjob_port" {
      }
    }
    meta {
      jobshift_env            = "template over the snapshot"
      jobshift_judges         = "watcher"
      jobshift_role           = "worker"
      jobshift_snapshot_ports = "1:tfjob_port"
    }
  }
  meta {
    jobshift_attempt    = "0"
    jobshift_format     = "volcano"
    jobshift_name       = "tensorflow-dist"
    jobshift_policy     = "{\"name\":\"tensorflow-dist\",\"kind\":\"volcano\",\"format\":\"volcano\",\"version\":\"batch.volcano.sh/v1alpha1\",\"completion\":{\"kind\":\"volcano\",\"pos\":{}},\"retry\":{\"jobRetryCount\":0,\"gangAllocation\":false,\"pos\":{}},\"roles\":[{\"name\":\"ps\",\"instances\":1,\"minFailed\":null,\"minSucceeded\":null,\"restartPolicy\":\"Never\"},{\"name\":\"worker\",\"instances\":2,\"minFailed\":null,\"minSucceeded\":null,\"restartPolicy\":\"Never\"}],\"volcano\":{\"minAvailable\":3,\"maxRetry\":3,\"policies\":[{\"events\":[\"PodEvicted\"],\"action\":\"RestartJob\",\"pos\":{\"file\":\"volcano-tf-shape.yaml\",\"line\":21,\"col\":7}}],\"tasks\":[{\"name\":\"ps\",\"minAvailable\":1,\"maxRetry\":3},{\"name\":\"worker\",\"minAvailable\":2,\"maxRetry\":3,\"policies\":[{\"events\":[\"TaskCompleted\"],\"action\":\"CompleteJob\",\"pos\":{\"file\":\"volcano-tf-shape.yaml\",\"line\":46,\"col\":11}}]}],\"plugins\":[{\"name\":\"env\",\"pos\":{\"file\":\"volcano-tf-shape.yaml\",\"line\":18,\"col\":5}},{\"name\":\"svc\",\"pos\":{\"file\":\"volcano-tf-shape.yaml\",\"line\":19,\"col\":5}}]}}"
    jobshift_rendezvous = "snapshot"
    jobshift_shape      = "watched: what jobshift run submits; jobshift convert without -watched writes the shape for nomad job run"
    jobshift_source     = "volcano-tf-shape.yaml"
    jobshift_user       = "alice"
    jobshift_version    = "0.1.0-dev"
  }
}
