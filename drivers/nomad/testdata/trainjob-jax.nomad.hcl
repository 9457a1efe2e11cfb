# jobshift: watched: what jobshift run submits; jobshift convert without -watched writes the shape for nomad job run
#
# shape: watched (jobshift run or the controller follows it); rendezvous snapshot
# group node (raw_exec): env nomad-env in the task; judged by watcher, in-task finisher; task namespace files by nomad-env
#   task main > nomad-env > task namespace > restart loop > finisher tail > command
# why: rendezvous snapshot: the watcher writes every task's address once all are placed
# why (node): env: /usr/local/bin/jobshift nomad-env evaluates the contract in the task
# why (node): in-task finisher: the wrapper execs /usr/local/bin/jobshift nomad-finish -exit when the command ended for good
# why (node): task namespace: the command runs as a plain process, which gets its platform host name and files from the wrapper
# why (node): task namespace files by nomad-env: it runs first anyway and writes them before it execs the wrapper, so the task has no template

job "alice~jax-psum" {
  type        = "batch"
  datacenters = ["dc1"]
  group "node" {
    count = 2
    task "main" {
      driver      = "raw_exec"
      kill_signal = "SIGTERM"
      config {
        args    = ["nomad-env", "--", "sh", "$${NOMAD_TASK_DIR}/jobshift-taskns.sh", "$${NOMAD_TASK_DIR}/jobshift-taskns.spec", "--", "/bin/sh", "-c", "_t_kind=none\n_t_gang=0\n_t_bl=-1\n_t_classes=uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuttpuuppuuuupuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu\n_t_bo_init=10000 _t_bo_max=300000\n_t_tretry_0=0\n_t_role=0\n_s_frac=\n_s_pid=\njs_lock() {\n\t_l_n=0\n\tuntil mkdir \"$1.lock\" 2>/dev/null; do\n\t\tsleep 0.05\n\t\t_l_n=$((_l_n + 1))\n\t\t[ \"$_l_n\" -gt 200 ] && rmdir \"$1.lock\" 2>/dev/null\n\tdone\n}\njs_unlock() { rmdir \"$1.lock\"; }\njs_counter_add() {\n\tjs_lock \"$1\"\n\t_l_v=$(cat \"$1\" 2>/dev/null || echo 0)\n\techo $((_l_v + 1)) >\"$1\"\n\tjs_unlock \"$1\"\n}\njs_nth_is() {\n\t_q_p=\n\t_q_k=1\n\twhile [ \"$_q_k\" -lt \"$2\" ]; do\n\t\t_q_p=\"$_q_p?\"\n\t\t_q_k=$((_q_k + 1))\n\tdone\n\tcase $1 in\n\t$_q_p\"$3\"*) return 0 ;;\n\tesac\n\treturn 1\n}\njs_restart() {\n\tcase $_t_kind in\n\tpai)\n\t\t[ \"$_t_gang\" = 1 ] && return 1\n\t\t[ \"$2\" = 0 ] && return 1\n\t\tif [ \"$2\" -ge 0 ] && [ \"$2\" -le 255 ]; then\n\t\t\tjs_nth_is \"$_t_classes\" $(($2 + 1)) t && return 0\n\t\t\tjs_nth_is \"$_t_classes\" $(($2 + 1)) p && return 1\n\t\tfi\n\t\teval \"_r_max=\\$_t_tretry_$1\"\n\t\t_r_f=$3/restarts.$1.$4\n\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\tif [ \"$_r_max\" = -1 ] || [ \"$_r_so\" -lt \"$_r_max\" ]; then\n\t\t\tjs_counter_add \"$_r_f\"\n\t\t\treturn 0\n\t\tfi\n\t\treturn 1\n\t\t;;\n\ttf | pytorch)\n\t\t[ \"$2\" -ge 0 ] && [ \"$2\" -le 255 ] || return 1\n\t\teval \"_r_rs=\\$_t_rs_$1\"\n\t\tjs_nth_is \"$_r_rs\" $(($2 + 1)) 1 || return 1\n\t\t_r_f=$3/restarts.job\n\t\tif [ \"$_t_bl\" -ge 0 ]; then\n\t\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\t\t[ $((_r_so + 1)) -ge \"$_t_bl\" ] && return 1\n\t\tfi\n\t\tjs_counter_add \"$_r_f\"\n\t\treturn 0\n\t\t;;\n\tvolcano)\n\t\t_r_vpol=0\n\t\t_r_vtask=0\n\t\t[ \"$2\" -ge 0 ] && [ \"$2\" -le 255 ] || return 1\n\t\teval \"_r_k=\\$_t_vk_$1 _r_p=\\$_t_vp_$1 _r_max=\\$_t_vtmax_$1\"\n\t\tif js_nth_is \"$_r_k\" $(($2 + 1)) 1; then\n\t\t\t_r_f=$3/restarts.role.$1\n\t\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\t\t[ \"$_r_max\" -ge 0 ] && [ \"$_r_so\" -ge \"$_r_max\" ] && return 1\n\t\telse\n\t\t\tjs_nth_is \"$_r_p\" $(($2 + 1)) 0 && return 1\n\t\t\t_r_f=$3/restarts.job\n\t\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\t\t[ $((_r_so + 1)) -ge \"$_t_vmax\" ] && return 1\n\t\t\t_r_vpol=1\n\t\t\tjs_nth_is \"$_r_p\" $(($2 + 1)) t && _r_vtask=1\n\t\tfi\n\t\tjs_counter_add \"$_r_f\"\n\t\treturn 0\n\t\t;;\n\tesac\n\treturn 1\n}\njs_backoff() {\n\tif [ \"$1\" -le 0 ] || [ \"$2\" -gt $((2 * _t_bo_max)) ]; then\n\t\t_b_wait=0\n\t\t_b_streak=1\n\t\treturn\n\tfi\n\t_b_wait=$_t_bo_init\n\t_b_n=1\n\twhile [ \"$_b_n\" -lt \"$1\" ] && [ \"$_b_wait\" -lt \"$_t_bo_max\" ]; do\n\t\t_b_wait=$((_b_wait * 2))\n\t\t_b_n=$((_b_n + 1))\n\tdone\n\t[ \"$_b_wait\" -gt \"$_t_bo_max\" ] && _b_wait=$_t_bo_max\n\t_b_streak=$(($1 + 1))\n}\njs_vdelay() {\n\t[ \"$_t_kind\" = volcano ] || return 0\n\t_d_c=$2\n\teval \"_d_l=\\$_t_vd_$1\"\n\t_d_ifs=$IFS\n\tIFS=_\n\tset -- $_d_l\n\tIFS=$_d_ifs\n\twhile [ $# -ge 2 ]; do\n\t\tif [ \"$1\" = \"$_d_c\" ] && [ \"$2\" -gt \"$_b_wait\" ]; then\n\t\t\t_b_wait=$2\n\t\tfi\n\t\tshift 2\n\tdone\n\treturn 0\n}\njs_now_ms() {\n\t_n_ns=$(date +%s%N)\n\tcase $_n_ns in\n\t'' | *[!0-9]*) echo $(($(date +%s) * 1000)) ;;\n\t*) echo $((_n_ns / 1000000)) ;;\n\tesac\n}\njs_sleep_ms() {\n\t[ \"$_k_stop\" = 1 ] && return 0\n\tif [ -z \"$_s_frac\" ]; then\n\t\t_s_frac=0\n\t\tsleep 0.001 2>/dev/null && _s_frac=1\n\tfi\n\tif [ \"$_s_frac\" = 1 ]; then\n\t\tsleep \"$(($1 / 1000)).$(printf '%03d' $(($1 % 1000)))\" &\n\telse\n\t\tsleep $((($1 + 999) / 1000)) &\n\tfi\n\t_s_pid=$!\n\t[ \"$_k_stop\" = 1 ] && kill -KILL \"$_s_pid\" 2>/dev/null\n\twait \"$_s_pid\"\n\tkill -KILL \"$_s_pid\" 2>/dev/null\n\twait \"$_s_pid\" 2>/dev/null\n\t_s_pid=\n\treturn 0\n}\n_k_stop=0\n_k_child=\n_k_setsid=\ncommand -v setsid >/dev/null 2>&1 && _k_setsid=setsid\ntrap '_k_stop=1; [ -n \"$_k_child\" ] && { kill -TERM \"-$_k_child\" 2>/dev/null || kill -TERM \"$_k_child\" 2>/dev/null; }; [ -n \"$_s_pid\" ] && kill -KILL \"$_s_pid\" 2>/dev/null' TERM INT\n_k_dir=$NOMAD_TASK_DIR\n[ -n \"$_k_dir\" ] || _k_dir=.\n_k_i=$NOMAD_ALLOC_INDEX\n[ -n \"$_k_i\" ] || _k_i=0\n_k_streak=0\n_k_rc=0\nif [ \"$_t_kind\" = volcano ] && [ ! -f \"$_k_dir/restarts.job\" ]; then\n\t_k_rc0=$NOMAD_META_jobshift_retries\n\tcase $_k_rc0 in '' | *[!0-9]*) _k_rc0=0 ;; esac\n\techo \"$_k_rc0\" >\"$_k_dir/restarts.job\"\nfi\nwhile :; do\n\t_k_t0=$(js_now_ms)\n\t$_k_setsid \"$@\" &\n\t_k_child=$!\n\t[ \"$_k_stop\" = 1 ] && { kill -TERM \"-$_k_child\" 2>/dev/null || kill -TERM \"$_k_child\" 2>/dev/null; }\n\twait \"$_k_child\"\n\t_k_rc=$?\n\twhile kill -0 \"$_k_child\" 2>/dev/null; do\n\t\twait \"$_k_child\"\n\t\t_k_rc=$?\n\tdone\n\tif [ \"$_k_stop\" = 1 ]; then\n\t\twhile kill -0 \"-$_k_child\" 2>/dev/null; do sleep 0.1; done\n\tfi\n\t_k_child=\n\t_k_t1=$(js_now_ms)\n\techo \"$_k_t0 $_k_t1 $_k_rc\" >>\"$_k_dir/jobshift-runs\"\n\t[ \"$_k_stop\" = 1 ] && break\n\tjs_restart \"$_t_role\" \"$_k_rc\" \"$_k_dir\" \"$_k_i\" || break\n\tjs_backoff \"$_k_streak\" $((_k_t1 - _k_t0))\n\t_k_streak=$_b_streak\n\tjs_vdelay \"$_t_role\" \"$_k_rc\"\n\tif [ \"$_t_kind\" = volcano ] && [ \"$_r_vpol\" = 1 ]; then\n\t\t_k_vt=pod\n\t\t[ \"$_r_vtask\" = 1 ] && _k_vt=task\n\t\techo \"$_k_t1 $_k_vt $_k_rc $_b_wait\" >>\"$_k_dir/jobshift-vrestarts\"\n\t\techo 'jobshift: Volcano RetryCount +1 (a RestartPod or RestartTask policy restarts the task in place)' >&2\n\tfi\n\tprintf 'jobshift: task exited with %s; restarting it in place after %s ms (kubelet CrashLoopBackOff)\\n' \"$_k_rc\" \"$_b_wait\" >&2\n\tif [ \"$_b_wait\" -gt 0 ]; then\n\t\tjs_sleep_ms \"$_b_wait\"\n\t\t[ \"$_k_stop\" = 1 ] && break\n\tfi\ndone\n[ \"$_k_stop\" = 1 ] || [ ! -x '/usr/local/bin/jobshift' ] || exec '/usr/local/bin/jobshift' nomad-finish -exit \"$_k_rc\"\nexit \"$_k_rc\"\n", "jobshift-restart", "python3", "-c", "import jax; jax.distributed.initialize(); print(jax.process_index(), jax.process_count(), flush=True)"]
        command = "/usr/local/bin/jobshift"
      }
      env {
        CUDA_VISIBLE_DEVICES = ""
        JOBSHIFT_TASK_ENV    = "H4sIAAAAAAAC/7xV328bNwx+319h8CkBzndxgqzrFQOcpSmaoUmNxHuqg4Cno205+nGQKNde4P3tg3Q+x+6KAR26vtgSKZEfv4/iPcPCVlA+g0FNUMICV/3GBw1Zsoysj86pVNGZ50WeFwtb+YIdSkOuYPJcI2NrWNiqv8BVvkatIAMlDUH5KgNhFZSvNxl4G5ygFNI6jQwldBchgyU5L63pjOTyp1DRVNnPuXWzYjlA1cxxABk8SVNDCeN47Pd0t0GefzPETQbOKvJQftoxYGxNMd5B5R2OLmhveZqf5Sc9jUZOybMvKvRUuGBYavLFAlePtfTsZBWY6kNCTn/ZMjJ4FQFQo6TA8bqhl8IhA2k8oxER3One7nsoMjjtAJxvMpAaZ18I/V3LPevKPTvZxJXWGMV77kREN1vCnuMTNGueW3MGGfRFZEI31nFvgas38SffzySNZIlK/klHx296jZOGj+KZxllB3j9KU9Pq6Djr7RuFDYajcaqCn/86doGO4eFLzf8jt2fbas83Sdy241Nc0YQbqZSE8iQDTdq69Y38Le38XHfLWRPSfwsmBonVty2qsCJ10CWpFCgHiSUlhWQo2QXKwARdkYPy9PX5yV64hwy0NO9QKqqhNEGpZLgPQhDVB7b2UNsZm8NTO6Mjz+h4ZJUUayjhY7oVXHxCFYonO51+kDqi+jmmFlY3ijg98l0DRIqJ/983N+g6vlWF3TpmWtjqLq4vWxYj+2hmF0pZgS3IKSpPPw6ZsIYdiiR3p3LssdidtGKHCUYnf/kM2xxQwqUKnsmlkSjN7K51xL7v7+XuHfGcelWQivvS/NP7jaUdHyfZtuJHoFmH7s6qvXFqgr619XaYmfgQR+SiBUqA1PS7fXwOoaqtRmkOv0hklnfbcd3GfdhE0mzDiZY/fOQEUEkRU17+C5dXKxS8U3f87gPNUKyvlqgCsnU7z6idGC3Im9H1WxkzFKybNBjmcsp93ch+yvnXHtT27F0w46TONtz9/fvd+r31fIs6VtM+2BGRuzLsZDSlQ9vP0wuL3mDj55aTRWPdTqfD5MX27FLS58iKb0hACdrWNGEMbCfGC4cs5hMuhuPhSyGM/sn4vJ6YufUcP4cT7qL2Y9T+SX94PWzdEx5eDL/q733Flne2icG6du1lAxnE3eMSI6u3H28u3j5ejx679t5sfvo7AAD//zvmJTCfCAAA"
      }
      resources {
      }
      identity {
        name = "default"
        file = true
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
      port "trainer" {
      }
    }
    meta {
      jobshift_env            = "nomad-env in the task"
      jobshift_judges         = "watcher, in-task finisher"
      jobshift_role           = "node"
      jobshift_snapshot_ports = "0:trainer"
    }
  }
  meta {
    jobshift_attempt    = "0"
    jobshift_format     = "trainjob"
    jobshift_name       = "jax-psum"
    jobshift_policy     = "{\"name\":\"jax-psum\",\"kind\":\"jobset\",\"format\":\"trainjob\",\"version\":\"trainer.kubeflow.org/v1alpha1\",\"completion\":{\"kind\":\"jobset\",\"pos\":{}},\"retry\":{\"jobRetryCount\":0,\"gangAllocation\":false,\"pos\":{}},\"roles\":[{\"name\":\"node\",\"replicaType\":\"trainer\",\"instances\":2,\"minFailed\":null,\"minSucceeded\":null,\"restartPolicy\":\"OnFailure\",\"backoffLimit\":6}]}"
    jobshift_rendezvous = "snapshot"
    jobshift_shape      = "watched: what jobshift run submits; jobshift convert without -watched writes the shape for nomad job run"
    jobshift_source     = "../../jobs/trainer/testdata/trainjob-jax.yaml"
    jobshift_user       = "alice"
    jobshift_version    = "0.1.0-dev"
  }
}
