// n8n-core reads these when first loaded; every test process gets its own user folder.
const fs = require('fs');
const os = require('os');
const path = require('path');

if (!process.env.N8N_USER_FOLDER) {
	process.env.N8N_USER_FOLDER = fs.mkdtempSync(path.join(os.tmpdir(), 'n8n-money-test-'));
}
process.env.N8N_ENCRYPTION_KEY = process.env.N8N_ENCRYPTION_KEY || 'test-encryption-key-not-a-secret';
process.env.N8N_LOG_LEVEL = process.env.N8N_LOG_LEVEL || 'silent';
process.env.N8N_DIAGNOSTICS_ENABLED = 'false';
