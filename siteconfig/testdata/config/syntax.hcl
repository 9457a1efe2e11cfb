nomad {
  address = "http://x
}
