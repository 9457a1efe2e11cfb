image "a/*" { replace = "b/*/*" }
image "*" { replace = "mirror/*" }
image "a/*/c*" { replace = "x/*" }
image "late" {}
role "" {}
role "w" {
  env = { "1BAD" = "x", GOOD = 3, OK = "y" }
  cpu = -1
  memory_mib = 1.5
}
role "w" { driver = "exec" }
gpu_type "v100" { model = "Tesla V100" }
