// Placeholder until the harness/ptx library lands; replaced by its first real file.
