// Placeholder until the harness/sim library lands; replaced by its first real file.
