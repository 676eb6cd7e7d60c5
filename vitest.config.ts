import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/helpers/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Most tests wait on spawned CLIs, servers and timers rather than on the CPU; vitest's default
    // (cores - 1) would run one file at a time on a 2-core machine. Three at once halves the suite
    // there (258 s -> 126 s) with the same results.
    maxWorkers: 3,
  },
})
