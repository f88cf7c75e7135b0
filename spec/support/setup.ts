// Loaded by mocha before every spec file (see .mocharc.json).
// Keeps the process quiet: the logger writes nothing below "error" during tests unless asked.
process.env.VIGIL_LOG_LEVEL = process.env.VIGIL_LOG_LEVEL ?? 'error';
