import winston from 'winston';

/** JSON lines in production (VIGIL_LOG_FORMAT=json or NODE_ENV=production), readable lines in a terminal. */
export function createLogger(level: string, format: 'json' | 'pretty'): winston.Logger {
  return winston.createLogger({
    level,
    format: format === 'json'
      ? winston.format.combine(winston.format.timestamp(), winston.format.errors({ stack: true }), winston.format.json())
      : winston.format.combine(
        winston.format.timestamp({ format: 'HH:mm:ss' }),
        winston.format.colorize(),
        winston.format.printf(({ timestamp, level: l, message, ...meta }) => `${timestamp} ${l} ${message}${Object.keys(meta).length ? ` ${JSON.stringify(meta)}` : ''}`),
      ),
    transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn'] })],
  });
}
