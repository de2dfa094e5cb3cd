import { readFileSync } from 'node:fs';
import type { SandboxConfig } from './domain/settings';
import type { WebhookScheme } from './domain/types';
import { startSandbox, type SandboxOptions } from './index';

const USAGE = `usage: npm run sandbox -- [--port N] [--auth-port N] [--host H] [--webhook-url URL]
  [--webhook-scheme request-style|body-hmac] [--gateway-prefix /prefix] [--config FILE] [--state FILE]
  [--finalize-after-ms N] [--token-ttl-seconds N] [--idempotency-fingerprint raw|semantic]`;

function parseArguments(argv: string[]): SandboxOptions {
	const options: SandboxOptions = { port: 4010, authPort: 4011 };
	const number = (flag: string, value: string): number => {
		const parsed = Number(value);
		if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${flag} needs a non-negative integer, got ${value}`);
		return parsed;
	};
	for (let index = 0; index < argv.length; index++) {
		const flag = argv[index];
		if (flag === '--help' || flag === '-h') {
			process.stdout.write(`${USAGE}\n`);
			process.exit(0);
		}
		const value = argv[index + 1];
		if (value === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
		index++;
		switch (flag) {
			case '--port':
				options.port = number(flag, value);
				break;
			case '--auth-port':
				options.authPort = number(flag, value);
				break;
			case '--host':
				options.host = value;
				break;
			case '--webhook-url':
				options.webhookUrl = value;
				break;
			case '--webhook-scheme':
				if (value !== 'request-style' && value !== 'body-hmac') throw new Error('--webhook-scheme is request-style or body-hmac');
				options.webhookScheme = value as WebhookScheme;
				break;
			case '--gateway-prefix':
				options.gatewayPrefix = value;
				break;
			case '--config':
				options.config = JSON.parse(readFileSync(value, 'utf8')) as Partial<SandboxConfig>;
				break;
			case '--state':
				options.statePath = value;
				break;
			case '--finalize-after-ms':
				options.finalizeAfterMs = number(flag, value);
				break;
			case '--token-ttl-seconds':
				options.tokenTtlSeconds = number(flag, value);
				break;
			case '--idempotency-fingerprint':
				if (value !== 'raw' && value !== 'semantic') throw new Error('--idempotency-fingerprint is raw or semantic');
				options.config = { ...options.config, idempotencyFingerprint: value };
				break;
			default:
				throw new Error(`unknown option ${flag}\n${USAGE}`);
		}
	}
	return options;
}

async function main(): Promise<void> {
	const sandbox = await startSandbox(parseArguments(process.argv.slice(2)));
	process.stdout.write(`sandbox ready ${JSON.stringify(sandbox.info)}\n`);
	let stopping = false;
	const stop = (signal: string) => {
		if (stopping) return;
		stopping = true;
		process.stderr.write(`sandbox: ${signal}, closing\n`);
		sandbox.close().then(
			() => process.exit(0),
			(error: unknown) => {
				process.stderr.write(`sandbox: close failed: ${String(error)}\n`);
				process.exit(1);
			},
		);
	};
	process.on('SIGINT', () => stop('SIGINT'));
	process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
	process.stderr.write(`sandbox: ${error instanceof Error ? error.message : String(error)}\n`);
	process.exit(1);
});
