image "10.11.3.8:5000/*" { replace = "mirror.example/*" }
role "ps" { cpu = 1 }
