image "10.11.3.8:5000/*" { replace = "mirror.example/leinao/*" }
image "openpai/*" { replace = "mirror.example/openpai/*" }
role "ps" { cpu = 1 }
role "*" { env = { NCCL_DEBUG = "INFO" } }
