# jobshift: watched: what jobshift run submits; jobshift convert without -watched writes the shape for nomad job run
#
# shape: watched (jobshift run or the controller follows it); rendezvous snapshot
# group dataset-initializer (raw_exec): env nomad-env in the task; judged by watcher, in-task finisher; task namespace files by nomad-env
#   task main > nomad-env > task namespace > restart loop > finisher tail > command
# group node (raw_exec): env nomad-env in the task; judged by watcher, in-task finisher; task namespace files by nomad-env
#   task wait (prestart)
#   task main > nomad-env > task namespace > restart loop > finisher tail > command
# why: rendezvous snapshot: the watcher writes every task's address once all are placed
# why (dataset-initializer): env: /usr/local/bin/jobshift nomad-env evaluates the contract in the task
# why (dataset-initializer): in-task finisher: the wrapper execs /usr/local/bin/jobshift nomad-finish -exit when the command ended for good
# why (dataset-initializer): task namespace: the command runs as a plain process, which gets its platform host name and files from the wrapper
# why (dataset-initializer): task namespace files by nomad-env: it runs first anyway and writes them before it execs the wrapper, so the task has no template
# why (dataset-initializer): volume initializer: hostPath /tmp/jobshift-example-workspace at /workspace, bound from /tmp/jobshift-example-workspace by the task namespace
# why (node): env: /usr/local/bin/jobshift nomad-env evaluates the contract in the task
# why (node): in-task finisher: the wrapper execs /usr/local/bin/jobshift nomad-finish -exit when the command ended for good
# why (node): wait task: the role starts once role dataset-initializer is Complete (and its other dependencies hold): /usr/local/bin/jobshift nomad-wait follows the job's allocations
# why (node): task namespace: the command runs as a plain process, which gets its platform host name and files from the wrapper
# why (node): task namespace files by nomad-env: it runs first anyway and writes them before it execs the wrapper, so the task has no template
# why (node): volume initializer: hostPath /tmp/jobshift-example-workspace at /workspace, bound from /tmp/jobshift-example-workspace by the task namespace

job "alice~with-dataset" {
  type        = "batch"
  datacenters = ["dc1"]
  group "dataset-initializer" {
    count = 1
    task "main" {
      driver      = "raw_exec"
      kill_signal = "SIGTERM"
      config {
        args    = ["nomad-env", "--", "sh", "$${NOMAD_TASK_DIR}/jobshift-taskns.sh", "$${NOMAD_TASK_DIR}/jobshift-taskns.spec", "--", "/bin/sh", "-c", "_t_kind=none\n_t_gang=0\n_t_bl=-1\n_t_classes=uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuttpuuppuuuupuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu\n_t_bo_init=10000 _t_bo_max=300000\n_t_tretry_0=0\n_t_tretry_1=0\n_t_role=0\n_s_frac=\n_s_pid=\njs_lock() {\n\t_l_n=0\n\tuntil mkdir \"$1.lock\" 2>/dev/null; do\n\t\tsleep 0.05\n\t\t_l_n=$((_l_n + 1))\n\t\t[ \"$_l_n\" -gt 200 ] && rmdir \"$1.lock\" 2>/dev/null\n\tdone\n}\njs_unlock() { rmdir \"$1.lock\"; }\njs_counter_add() {\n\tjs_lock \"$1\"\n\t_l_v=$(cat \"$1\" 2>/dev/null || echo 0)\n\techo $((_l_v + 1)) >\"$1\"\n\tjs_unlock \"$1\"\n}\njs_nth_is() {\n\t_q_p=\n\t_q_k=1\n\twhile [ \"$_q_k\" -lt \"$2\" ]; do\n\t\t_q_p=\"$_q_p?\"\n\t\t_q_k=$((_q_k + 1))\n\tdone\n\tcase $1 in\n\t$_q_p\"$3\"*) return 0 ;;\n\tesac\n\treturn 1\n}\njs_restart() {\n\tcase $_t_kind in\n\tpai)\n\t\t[ \"$_t_gang\" = 1 ] && return 1\n\t\t[ \"$2\" = 0 ] && return 1\n\t\tif [ \"$2\" -ge 0 ] && [ \"$2\" -le 255 ]; then\n\t\t\tjs_nth_is \"$_t_classes\" $(($2 + 1)) t && return 0\n\t\t\tjs_nth_is \"$_t_classes\" $(($2 + 1)) p && return 1\n\t\tfi\n\t\teval \"_r_max=\\$_t_tretry_$1\"\n\t\t_r_f=$3/restarts.$1.$4\n\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\tif [ \"$_r_max\" = -1 ] || [ \"$_r_so\" -lt \"$_r_max\" ]; then\n\t\t\tjs_counter_add \"$_r_f\"\n\t\t\treturn 0\n\t\tfi\n\t\treturn 1\n\t\t;;\n\ttf | pytorch)\n\t\t[ \"$2\" -ge 0 ] && [ \"$2\" -le 255 ] || return 1\n\t\teval \"_r_rs=\\$_t_rs_$1\"\n\t\tjs_nth_is \"$_r_rs\" $(($2 + 1)) 1 || return 1\n\t\t_r_f=$3/restarts.job\n\t\tif [ \"$_t_bl\" -ge 0 ]; then\n\t\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\t\t[ $((_r_so + 1)) -ge \"$_t_bl\" ] && return 1\n\t\tfi\n\t\tjs_counter_add \"$_r_f\"\n\t\treturn 0\n\t\t;;\n\tvolcano)\n\t\t_r_vpol=0\n\t\t_r_vtask=0\n\t\t[ \"$2\" -ge 0 ] && [ \"$2\" -le 255 ] || return 1\n\t\teval \"_r_k=\\$_t_vk_$1 _r_p=\\$_t_vp_$1 _r_max=\\$_t_vtmax_$1\"\n\t\tif js_nth_is \"$_r_k\" $(($2 + 1)) 1; then\n\t\t\t_r_f=$3/restarts.role.$1\n\t\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\t\t[ \"$_r_max\" -ge 0 ] && [ \"$_r_so\" -ge \"$_r_max\" ] && return 1\n\t\telse\n\t\t\tjs_nth_is \"$_r_p\" $(($2 + 1)) 0 && return 1\n\t\t\t_r_f=$3/restarts.job\n\t\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\t\t[ $((_r_so + 1)) -ge \"$_t_vmax\" ] && return 1\n\t\t\t_r_vpol=1\n\t\t\tjs_nth_is \"$_r_p\" $(($2 + 1)) t && _r_vtask=1\n\t\tfi\n\t\tjs_counter_add \"$_r_f\"\n\t\treturn 0\n\t\t;;\n\tesac\n\treturn 1\n}\njs_backoff() {\n\tif [ \"$1\" -le 0 ] || [ \"$2\" -gt $((2 * _t_bo_max)) ]; then\n\t\t_b_wait=0\n\t\t_b_streak=1\n\t\treturn\n\tfi\n\t_b_wait=$_t_bo_init\n\t_b_n=1\n\twhile [ \"$_b_n\" -lt \"$1\" ] && [ \"$_b_wait\" -lt \"$_t_bo_max\" ]; do\n\t\t_b_wait=$((_b_wait * 2))\n\t\t_b_n=$((_b_n + 1))\n\tdone\n\t[ \"$_b_wait\" -gt \"$_t_bo_max\" ] && _b_wait=$_t_bo_max\n\t_b_streak=$(($1 + 1))\n}\njs_vdelay() {\n\t[ \"$_t_kind\" = volcano ] || return 0\n\t_d_c=$2\n\teval \"_d_l=\\$_t_vd_$1\"\n\t_d_ifs=$IFS\n\tIFS=_\n\tset -- $_d_l\n\tIFS=$_d_ifs\n\twhile [ $# -ge 2 ]; do\n\t\tif [ \"$1\" = \"$_d_c\" ] && [ \"$2\" -gt \"$_b_wait\" ]; then\n\t\t\t_b_wait=$2\n\t\tfi\n\t\tshift 2\n\tdone\n\treturn 0\n}\njs_now_ms() {\n\t_n_ns=$(date +%s%N)\n\tcase $_n_ns in\n\t'' | *[!0-9]*) echo $(($(date +%s) * 1000)) ;;\n\t*) echo $((_n_ns / 1000000)) ;;\n\tesac\n}\njs_sleep_ms() {\n\t[ \"$_k_stop\" = 1 ] && return 0\n\tif [ -z \"$_s_frac\" ]; then\n\t\t_s_frac=0\n\t\tsleep 0.001 2>/dev/null && _s_frac=1\n\tfi\n\tif [ \"$_s_frac\" = 1 ]; then\n\t\tsleep \"$(($1 / 1000)).$(printf '%03d' $(($1 % 1000)))\" &\n\telse\n\t\tsleep $((($1 + 999) / 1000)) &\n\tfi\n\t_s_pid=$!\n\t[ \"$_k_stop\" = 1 ] && kill -KILL \"$_s_pid\" 2>/dev/null\n\twait \"$_s_pid\"\n\tkill -KILL \"$_s_pid\" 2>/dev/null\n\twait \"$_s_pid\" 2>/dev/null\n\t_s_pid=\n\treturn 0\n}\n_k_stop=0\n_k_child=\n_k_setsid=\ncommand -v setsid >/dev/null 2>&1 && _k_setsid=setsid\ntrap '_k_stop=1; [ -n \"$_k_child\" ] && { kill -TERM \"-$_k_child\" 2>/dev/null || kill -TERM \"$_k_child\" 2>/dev/null; }; [ -n \"$_s_pid\" ] && kill -KILL \"$_s_pid\" 2>/dev/null' TERM INT\n_k_dir=$NOMAD_TASK_DIR\n[ -n \"$_k_dir\" ] || _k_dir=.\n_k_i=$NOMAD_ALLOC_INDEX\n[ -n \"$_k_i\" ] || _k_i=0\n_k_streak=0\n_k_rc=0\nif [ \"$_t_kind\" = volcano ] && [ ! -f \"$_k_dir/restarts.job\" ]; then\n\t_k_rc0=$NOMAD_META_jobshift_retries\n\tcase $_k_rc0 in '' | *[!0-9]*) _k_rc0=0 ;; esac\n\techo \"$_k_rc0\" >\"$_k_dir/restarts.job\"\nfi\nwhile :; do\n\t_k_t0=$(js_now_ms)\n\t$_k_setsid \"$@\" &\n\t_k_child=$!\n\t[ \"$_k_stop\" = 1 ] && { kill -TERM \"-$_k_child\" 2>/dev/null || kill -TERM \"$_k_child\" 2>/dev/null; }\n\twait \"$_k_child\"\n\t_k_rc=$?\n\twhile kill -0 \"$_k_child\" 2>/dev/null; do\n\t\twait \"$_k_child\"\n\t\t_k_rc=$?\n\tdone\n\tif [ \"$_k_stop\" = 1 ]; then\n\t\twhile kill -0 \"-$_k_child\" 2>/dev/null; do sleep 0.1; done\n\tfi\n\t_k_child=\n\t_k_t1=$(js_now_ms)\n\techo \"$_k_t0 $_k_t1 $_k_rc\" >>\"$_k_dir/jobshift-runs\"\n\t[ \"$_k_stop\" = 1 ] && break\n\tjs_restart \"$_t_role\" \"$_k_rc\" \"$_k_dir\" \"$_k_i\" || break\n\tjs_backoff \"$_k_streak\" $((_k_t1 - _k_t0))\n\t_k_streak=$_b_streak\n\tjs_vdelay \"$_t_role\" \"$_k_rc\"\n\tif [ \"$_t_kind\" = volcano ] && [ \"$_r_vpol\" = 1 ]; then\n\t\t_k_vt=pod\n\t\t[ \"$_r_vtask\" = 1 ] && _k_vt=task\n\t\techo \"$_k_t1 $_k_vt $_k_rc $_b_wait\" >>\"$_k_dir/jobshift-vrestarts\"\n\t\techo 'jobshift: Volcano RetryCount +1 (a RestartPod or RestartTask policy restarts the task in place)' >&2\n\tfi\n\tprintf 'jobshift: task exited with %s; restarting it in place after %s ms (kubelet CrashLoopBackOff)\\n' \"$_k_rc\" \"$_b_wait\" >&2\n\tif [ \"$_b_wait\" -gt 0 ]; then\n\t\tjs_sleep_ms \"$_b_wait\"\n\t\t[ \"$_k_stop\" = 1 ] && break\n\tfi\ndone\n[ \"$_k_stop\" = 1 ] || [ ! -x '/usr/local/bin/jobshift' ] || exec '/usr/local/bin/jobshift' nomad-finish -exit \"$_k_rc\"\nexit \"$_k_rc\"\n", "jobshift-restart", "python3", "-c", "import os\nos.makedirs(\"/workspace/dataset\", exist_ok=True)\nwith open(\"/workspace/dataset/rows.txt\", \"w\") as f:\n    for i in range(int(os.environ[\"ROWS\"])):\n        print(i, i * i, file=f)\nprint(\"dataset written\", flush=True)\n"]
        command = "/usr/local/bin/jobshift"
      }
      env {
        CUDA_VISIBLE_DEVICES = ""
        JOBSHIFT_TASK_ENV    = "H4sIAAAAAAAC/8RWbW/bOBL+fr+CGKCAdZDlOGn6IiBAcm2K9q5NDMeH/RAaBS3RFmNqKJCUHW/g/e2LoSTH2TSL7ibA5kMsjeZ9noecO7gxM0jvAEUpIYW18kU/F1446SEO0pFxpDBXmhSSZJAkA3krykpLN/BWKLwxs75C5ZXQ6ldpk40oNcSgFUpIh0cxZEZD+n4bgzO1zWRwZ2wpPKTQeYAYVtI6ZbATSpss65mca7NOjF0MVkOhq0IMIYalwhxSmJDaf4NtJXzxV9LbxmCNlg7S613xbd37yuT5efW/PmjrH76lmLLSKhOTTfV0QIXOC8wot+HeWzOHbQyqFIvnTuW4y+roYEtPZSmoo3ddZ4VdrGDvwzVUG18YPIIY+hklWVbGemYcR+OSUixlrqzrcRisjV26SmRy0JbHIWbyVjn/3SxPJraWEUfCGTOVxB9aDKxZu8TfBlMOaw4RE47NU46MMTY3limmkFmBC9lT6HvGJRJXyhq85jC+/OWKwzSKWn36qyypqZgp9m+mYkaNO5lHHJsPvJsFW1vlvUSKPNe1K7qMYfpsKBwP26YfHm0DFho6BJ9ZVX9TWitID2IoZWns5pv6T3hzRdk9Lqo6/DaJkJNS4SehtMwhxVrrILiqs0zK/IGsUdphaF9rJ7TSeWH9yGiVbSCFy2BVWwkxzES2NPP5V1UqD+mbbbxjDZpcPp8mb949TZP2NHhIjcNH1PjbsQ9fd7GPX4he74YvRy/iAjtpyPIA5h/PJmdX5xNCemKlyHtR4iqtCMycI4doZ3ttA2ds4AyJ1JzZKUcrcBkzZCfsEYdG55PvF5cfz7+Pzy7+RyHiJ3RIKbCNY6lQspMQ4ZpcpylO7wlGEvYqZ2ZO/ynhvTezdjFzdcle5RzYK9ZrU4uZltgjx1HzSJpRUA28t23J0fVwGt0XGQyil2fwu8OXZzANurmGtJhJ/QDvmanRN9dASYwg7nlbyxiwLmfSQnr4/vhgz930HzsRYshlJTF3lxiKodv1ySvOeeFrByl8MNR6/wIHyNuDexJvp9SIrPEdNood827MrFltnhmuI/iwwYG3G/J2Y2Zjev7QzI3mLXBxprXJRJPIXGgnXzZ6ZtBbkQUQddjpe2OzghAvb70VIVgHq/QObI1ehdM7rFAKF+NGwrp5+UJiP1iwni+UCxdmFPrWYqGJEHdux82829sA6/LC5O05jZU12UhakkAKtMAtqnonIILUs9yUQuHjFVTiatwuao3z6ZaKNpUPRf3fUUUgtMoo7oc/7cX5rcj8bgaTT1/lQmSb85XQtfDG7r6MrMmkI3xCDN9GXz4qijHwZTUg/BRq7vtlpfoh6m9/SLjRH9c4CR1uXV5dfd49fzbOX4iSamrIPJLSnqO3ikRBqV1PnyYQisoVxoeOlyIPeQ0e5zP4sflKyTV1z1UygxRKk0vuRe0NR5dZ4bOC+8Hp5PS+XC/cEl2ScyyM83T1c78fqP+DQP2D/umX08aC+9Oz0581YT+nluyrcZwpzLm3a+4fTqrlVX+3ZnJ/v3JyFHlum+wQttt//R4AAP//vC42zxINAAA="
        ROWS                 = "64"
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
    }
    meta {
      jobshift_env            = "nomad-env in the task"
      jobshift_judges         = "watcher, in-task finisher"
      jobshift_role           = "dataset-initializer"
      jobshift_snapshot_ports = "0:"
    }
  }
  group "node" {
    count = 2
    task "wait" {
      driver = "raw_exec"
      lifecycle {
        hook = "prestart"
      }
      config {
        args    = ["nomad-wait", "dataset-initializer=Complete"]
        command = "/usr/local/bin/jobshift"
      }
      resources {
        cpu    = 50
        memory = 64
      }
      identity {
        name = "default"
        env  = true
      }
    }
    task "main" {
      driver      = "raw_exec"
      kill_signal = "SIGTERM"
      config {
        args    = ["nomad-env", "--", "sh", "$${NOMAD_TASK_DIR}/jobshift-taskns.sh", "$${NOMAD_TASK_DIR}/jobshift-taskns.spec", "--", "/bin/sh", "-c", "_t_kind=none\n_t_gang=0\n_t_bl=-1\n_t_classes=uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuttpuuppuuuupuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu\n_t_bo_init=10000 _t_bo_max=300000\n_t_tretry_0=0\n_t_tretry_1=0\n_t_role=1\n_s_frac=\n_s_pid=\njs_lock() {\n\t_l_n=0\n\tuntil mkdir \"$1.lock\" 2>/dev/null; do\n\t\tsleep 0.05\n\t\t_l_n=$((_l_n + 1))\n\t\t[ \"$_l_n\" -gt 200 ] && rmdir \"$1.lock\" 2>/dev/null\n\tdone\n}\njs_unlock() { rmdir \"$1.lock\"; }\njs_counter_add() {\n\tjs_lock \"$1\"\n\t_l_v=$(cat \"$1\" 2>/dev/null || echo 0)\n\techo $((_l_v + 1)) >\"$1\"\n\tjs_unlock \"$1\"\n}\njs_nth_is() {\n\t_q_p=\n\t_q_k=1\n\twhile [ \"$_q_k\" -lt \"$2\" ]; do\n\t\t_q_p=\"$_q_p?\"\n\t\t_q_k=$((_q_k + 1))\n\tdone\n\tcase $1 in\n\t$_q_p\"$3\"*) return 0 ;;\n\tesac\n\treturn 1\n}\njs_restart() {\n\tcase $_t_kind in\n\tpai)\n\t\t[ \"$_t_gang\" = 1 ] && return 1\n\t\t[ \"$2\" = 0 ] && return 1\n\t\tif [ \"$2\" -ge 0 ] && [ \"$2\" -le 255 ]; then\n\t\t\tjs_nth_is \"$_t_classes\" $(($2 + 1)) t && return 0\n\t\t\tjs_nth_is \"$_t_classes\" $(($2 + 1)) p && return 1\n\t\tfi\n\t\teval \"_r_max=\\$_t_tretry_$1\"\n\t\t_r_f=$3/restarts.$1.$4\n\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\tif [ \"$_r_max\" = -1 ] || [ \"$_r_so\" -lt \"$_r_max\" ]; then\n\t\t\tjs_counter_add \"$_r_f\"\n\t\t\treturn 0\n\t\tfi\n\t\treturn 1\n\t\t;;\n\ttf | pytorch)\n\t\t[ \"$2\" -ge 0 ] && [ \"$2\" -le 255 ] || return 1\n\t\teval \"_r_rs=\\$_t_rs_$1\"\n\t\tjs_nth_is \"$_r_rs\" $(($2 + 1)) 1 || return 1\n\t\t_r_f=$3/restarts.job\n\t\tif [ \"$_t_bl\" -ge 0 ]; then\n\t\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\t\t[ $((_r_so + 1)) -ge \"$_t_bl\" ] && return 1\n\t\tfi\n\t\tjs_counter_add \"$_r_f\"\n\t\treturn 0\n\t\t;;\n\tvolcano)\n\t\t_r_vpol=0\n\t\t_r_vtask=0\n\t\t[ \"$2\" -ge 0 ] && [ \"$2\" -le 255 ] || return 1\n\t\teval \"_r_k=\\$_t_vk_$1 _r_p=\\$_t_vp_$1 _r_max=\\$_t_vtmax_$1\"\n\t\tif js_nth_is \"$_r_k\" $(($2 + 1)) 1; then\n\t\t\t_r_f=$3/restarts.role.$1\n\t\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\t\t[ \"$_r_max\" -ge 0 ] && [ \"$_r_so\" -ge \"$_r_max\" ] && return 1\n\t\telse\n\t\t\tjs_nth_is \"$_r_p\" $(($2 + 1)) 0 && return 1\n\t\t\t_r_f=$3/restarts.job\n\t\t\t_r_so=$(cat \"$_r_f\" 2>/dev/null || echo 0)\n\t\t\t[ $((_r_so + 1)) -ge \"$_t_vmax\" ] && return 1\n\t\t\t_r_vpol=1\n\t\t\tjs_nth_is \"$_r_p\" $(($2 + 1)) t && _r_vtask=1\n\t\tfi\n\t\tjs_counter_add \"$_r_f\"\n\t\treturn 0\n\t\t;;\n\tesac\n\treturn 1\n}\njs_backoff() {\n\tif [ \"$1\" -le 0 ] || [ \"$2\" -gt $((2 * _t_bo_max)) ]; then\n\t\t_b_wait=0\n\t\t_b_streak=1\n\t\treturn\n\tfi\n\t_b_wait=$_t_bo_init\n\t_b_n=1\n\twhile [ \"$_b_n\" -lt \"$1\" ] && [ \"$_b_wait\" -lt \"$_t_bo_max\" ]; do\n\t\t_b_wait=$((_b_wait * 2))\n\t\t_b_n=$((_b_n + 1))\n\tdone\n\t[ \"$_b_wait\" -gt \"$_t_bo_max\" ] && _b_wait=$_t_bo_max\n\t_b_streak=$(($1 + 1))\n}\njs_vdelay() {\n\t[ \"$_t_kind\" = volcano ] || return 0\n\t_d_c=$2\n\teval \"_d_l=\\$_t_vd_$1\"\n\t_d_ifs=$IFS\n\tIFS=_\n\tset -- $_d_l\n\tIFS=$_d_ifs\n\twhile [ $# -ge 2 ]; do\n\t\tif [ \"$1\" = \"$_d_c\" ] && [ \"$2\" -gt \"$_b_wait\" ]; then\n\t\t\t_b_wait=$2\n\t\tfi\n\t\tshift 2\n\tdone\n\treturn 0\n}\njs_now_ms() {\n\t_n_ns=$(date +%s%N)\n\tcase $_n_ns in\n\t'' | *[!0-9]*) echo $(($(date +%s) * 1000)) ;;\n\t*) echo $((_n_ns / 1000000)) ;;\n\tesac\n}\njs_sleep_ms() {\n\t[ \"$_k_stop\" = 1 ] && return 0\n\tif [ -z \"$_s_frac\" ]; then\n\t\t_s_frac=0\n\t\tsleep 0.001 2>/dev/null && _s_frac=1\n\tfi\n\tif [ \"$_s_frac\" = 1 ]; then\n\t\tsleep \"$(($1 / 1000)).$(printf '%03d' $(($1 % 1000)))\" &\n\telse\n\t\tsleep $((($1 + 999) / 1000)) &\n\tfi\n\t_s_pid=$!\n\t[ \"$_k_stop\" = 1 ] && kill -KILL \"$_s_pid\" 2>/dev/null\n\twait \"$_s_pid\"\n\tkill -KILL \"$_s_pid\" 2>/dev/null\n\twait \"$_s_pid\" 2>/dev/null\n\t_s_pid=\n\treturn 0\n}\n_k_stop=0\n_k_child=\n_k_setsid=\ncommand -v setsid >/dev/null 2>&1 && _k_setsid=setsid\ntrap '_k_stop=1; [ -n \"$_k_child\" ] && { kill -TERM \"-$_k_child\" 2>/dev/null || kill -TERM \"$_k_child\" 2>/dev/null; }; [ -n \"$_s_pid\" ] && kill -KILL \"$_s_pid\" 2>/dev/null' TERM INT\n_k_dir=$NOMAD_TASK_DIR\n[ -n \"$_k_dir\" ] || _k_dir=.\n_k_i=$NOMAD_ALLOC_INDEX\n[ -n \"$_k_i\" ] || _k_i=0\n_k_streak=0\n_k_rc=0\nif [ \"$_t_kind\" = volcano ] && [ ! -f \"$_k_dir/restarts.job\" ]; then\n\t_k_rc0=$NOMAD_META_jobshift_retries\n\tcase $_k_rc0 in '' | *[!0-9]*) _k_rc0=0 ;; esac\n\techo \"$_k_rc0\" >\"$_k_dir/restarts.job\"\nfi\nwhile :; do\n\t_k_t0=$(js_now_ms)\n\t$_k_setsid \"$@\" &\n\t_k_child=$!\n\t[ \"$_k_stop\" = 1 ] && { kill -TERM \"-$_k_child\" 2>/dev/null || kill -TERM \"$_k_child\" 2>/dev/null; }\n\twait \"$_k_child\"\n\t_k_rc=$?\n\twhile kill -0 \"$_k_child\" 2>/dev/null; do\n\t\twait \"$_k_child\"\n\t\t_k_rc=$?\n\tdone\n\tif [ \"$_k_stop\" = 1 ]; then\n\t\twhile kill -0 \"-$_k_child\" 2>/dev/null; do sleep 0.1; done\n\tfi\n\t_k_child=\n\t_k_t1=$(js_now_ms)\n\techo \"$_k_t0 $_k_t1 $_k_rc\" >>\"$_k_dir/jobshift-runs\"\n\t[ \"$_k_stop\" = 1 ] && break\n\tjs_restart \"$_t_role\" \"$_k_rc\" \"$_k_dir\" \"$_k_i\" || break\n\tjs_backoff \"$_k_streak\" $((_k_t1 - _k_t0))\n\t_k_streak=$_b_streak\n\tjs_vdelay \"$_t_role\" \"$_k_rc\"\n\tif [ \"$_t_kind\" = volcano ] && [ \"$_r_vpol\" = 1 ]; then\n\t\t_k_vt=pod\n\t\t[ \"$_r_vtask\" = 1 ] && _k_vt=task\n\t\techo \"$_k_t1 $_k_vt $_k_rc $_b_wait\" >>\"$_k_dir/jobshift-vrestarts\"\n\t\techo 'jobshift: Volcano RetryCount +1 (a RestartPod or RestartTask policy restarts the task in place)' >&2\n\tfi\n\tprintf 'jobshift: task exited with %s; restarting it in place after %s ms (kubelet CrashLoopBackOff)\\n' \"$_k_rc\" \"$_b_wait\" >&2\n\tif [ \"$_b_wait\" -gt 0 ]; then\n\t\tjs_sleep_ms \"$_b_wait\"\n\t\t[ \"$_k_stop\" = 1 ] && break\n\tfi\ndone\n[ \"$_k_stop\" = 1 ] || [ ! -x '/usr/local/bin/jobshift' ] || exec '/usr/local/bin/jobshift' nomad-finish -exit \"$_k_rc\"\nexit \"$_k_rc\"\n", "jobshift-restart", "python3", "-c", "import os\nrows = open(os.environ[\"DATASET\"]).read().split(\"\\n\")\nrows = [r for r in rows if r]\nrank, n = int(os.environ[\"PET_NODE_RANK\"]), int(os.environ[\"PET_NNODES\"])\nmine = rows[rank::n]\nprint(\"rank %d of %d read %d of %d rows, sum %d\" % (rank, n, len(mine), len(rows), sum(int(r.split()[1]) for r in mine)), flush=True)\n"]
        command = "/usr/local/bin/jobshift"
      }
      env {
        CUDA_VISIBLE_DEVICES = ""
        DATASET              = "/workspace/dataset/rows.txt"
        JOBSHIFT_TASK_ENV    = "H4sIAAAAAAAC/8RWbU8jNxD+3l9hjXRSUm02BI57WQkJenA62gOikKofcIScXSdr4h2vbG9CitLfXo13N4RSKrUglQ/Enh3P6/PY8wB3ZgrJA6AoJCSwUj7vZcILJz1EQTo0jhRmSpNCHPfjuC/vRVFq6freCoV3ZtpTqLwSWv0ubbwWhYYItEIJyeAggtRoSD5vInCmsqkM5owthIcEWgsQwVJapwy2QmnjRTWVM21WsbHz/nIgdJmLAUSwUJhBAmNS+zmcLYXP/014mwis0dJBcrNNvsl7V5ksvy7/93tN/oOP5FOWWqVivC5fdqjQeYEpxTbY2dV92ESgCjF/bVcO26gO9ja0KgpBFX1oKyvsfAk7H26gXPvc4AFE0EspyKI01jPjOBoXF2IhM2Vdh0N/ZezClSKV/SY9DhGT98r5W7M4GttKdjkSzpgpJf7tib41Kxf7+3CUw4pDlwnHZglHxhibGcsUU8iswLnsKPQd42KJS2UN3nAYXf12zWHS7Tb69FdaUlMRU+xHpiJGhTuadTnWH3jbC7ayynuJ5HmmK5e3EcPk1VA4HDRF3z/YBCzUdAg207K6UForSPYiKGRh7PpC/RR2Li/a5byswm8dCBkpFH4VSssMEqy0DoLrKk2lzJ7IaqUthna1tkIrnRfWD41W6RoSuAqnKishgqlIF2Y2+64K5SH5sIm2rEGTydfT5MOnl2nS3AZPqbH/jBr/2ff++9b34RvR69Pg7ehFXGBHNVmewPz0ZHxyfTYmpMdWiqzTjV2pFYGZc+TQ3Z69sYEzNnCGRGrG7ISjFbiIGLIj9oxDw7Px7eXV6dnt6OTyF3IRvaBDSoFtHAuFkh0FDzdkOklw8kgwkrB3GTMz+k8B7+zMykXMVQV7l3Fg71inCS1iWmKHDHfrJWl2g2rgvW1S7t4MJt3HJMOB7tsz+NP+2zOYGl0/Q1pMpX6C99RU6OtnoCBGEPe8rWQEWBVTaSHZ/3y4t2Nu8r/dCBFkspSYuSsMydDr+uIT57zwlYMEvhgqvX+DC+Tj3iOJNxMqRFrbDhPFlnl3ZlqPNq901xJ8UOPA2zVZuzPTEa2/1H2jfgucn2htUlEHMhPaybf1nhr0VqQBRC12et7YNCfEy3tvRXDWwip5AFuhV+H2DiOUwvmolrC2Xz6X2AsnWMfnyoUHsxvq1mCh9hC1Zkd1v5vXAKvi0mTNPY2lNelQWpJAAjTAzctqKyCCVNPMFELh8xFU4nLUDGq18cmGkjalD0n96igjEFql5PfLP9bi7F6kftuD8dfvci7S9dlS6Ep4Y7dfhtak0hE+IYKL4fmpIh99X5R9wk+uZr5XlKoXvP7xl4Br/VGF41DhxuT19bft+ptx/lIUlFNN5qGU9gy9VSQKSs14+lhQh6J0ufFBUogsBNJ/HkC/0V8quaL6uFKmkEBhMsm9qLzh6FIrfJpz3z8eHz8m5IVboIszjrlxnh537nct98hyb693fH5cq3B/fHL8og57QR7vyjlOFWbc2xX3T8vbkKG3nQ25f5wTOYoss7V/hAhod7sU1KTLq4uT09vz4W2L9s3mhz8DAAD//0GQsADlDAAA"
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
      jobshift_snapshot_ports = "1:trainer"
    }
  }
  meta {
    jobshift_attempt    = "0"
    jobshift_format     = "trainjob"
    jobshift_name       = "with-dataset"
    jobshift_policy     = "{\"name\":\"with-dataset\",\"kind\":\"jobset\",\"format\":\"trainjob\",\"version\":\"trainer.kubeflow.org/v1alpha1\",\"completion\":{\"kind\":\"jobset\",\"pos\":{}},\"retry\":{\"jobRetryCount\":0,\"gangAllocation\":false,\"pos\":{}},\"roles\":[{\"name\":\"dataset-initializer\",\"replicaType\":\"dataset-initializer\",\"instances\":1,\"minFailed\":null,\"minSucceeded\":null,\"restartPolicy\":\"OnFailure\",\"backoffLimit\":6},{\"name\":\"node\",\"replicaType\":\"trainer\",\"instances\":2,\"minFailed\":null,\"minSucceeded\":null,\"restartPolicy\":\"OnFailure\",\"backoffLimit\":6,\"dependsOn\":[{\"role\":\"dataset-initializer\",\"status\":\"Complete\",\"pos\":{}}]}]}"
    jobshift_rendezvous = "snapshot"
    jobshift_shape      = "watched: what jobshift run submits; jobshift convert without -watched writes the shape for nomad job run"
    jobshift_source     = "../../examples/trainjob-initializer.yaml"
    jobshift_user       = "alice"
    jobshift_version    = "0.1.0-dev"
  }
}
