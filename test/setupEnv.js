// Before n8n's logger is built: let it pass debug lines on (the harness records them, see engine.ts).
process.env.N8N_LOG_LEVEL = 'debug';
