nomad {
  adress = "http://x:4646"
}
kubernetes {
}
image {
  replace = "x"
}
role "w" {
  gpus = 2
}
