nomad {
  address = env("NOMAD_ADDR")
  region  = var.region
}
