// Placeholder until the harness/gpu library lands; replaced by its first real file.
