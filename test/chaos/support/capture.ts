import path from 'node:path';
import { format } from 'node:util';

import * as sandboxSignature from '../../../sandbox/security/signature';
import { TokenStore } from '../../../sandbox/security/auth';
import { occursIn, renderForScan } from '../../harness/secrets';

/**
 * Everything a chaos scenario produces that a person could read later: node output items, error
 * messages and descriptions (whole run data), webhook answers, n8n logger calls, console calls
 * and bytes written to stdout/stderr. Also what must never appear in any of it: the fixed
 * secrets, every access token the sandbox issued and every request signature it verified.
 */

const LOG_LEVELS = ['error', 'warn', 'info', 'debug'] as const;

type LogFunction = (message: string, metadata?: unknown) => void;
type Loggerish = Record<(typeof LOG_LEVELS)[number], LogFunction>;

export interface FixedSecrets {
	clientSecret: string;
	apiKey: string;
	hmacSecret: string;
	webhookSecret: string;
	pin: string;
	[name: string]: string;
}

export interface ScanFigures {
	scannedChars: number;
	scannedValues: number;
	logCalls: number;
	/** Logger calls made by the pack itself (its messages all name the Money API or the trigger). */
	packLogCalls: number;
	consoleCalls: number;
	streamWrites: number;
	accessTokens: number;
	signatures: number;
	hits: string[];
}

const HEX_RUN = /[0-9a-fA-F]{64,}/g;
const TOKEN_PREFIX = 'sbx_at_';

/** n8n-core's own copies of @n8n/di and @n8n/backend-common (it nests them), as jest loads them. */
function n8nCoreLogger(): Loggerish {
	const coreDir = path.dirname(require.resolve('n8n-core/package.json'));
	const di = require(require.resolve('@n8n/di', { paths: [coreDir] })) as {
		Container: { get(token: unknown): unknown };
	};
	const backendCommon = require(require.resolve('@n8n/backend-common', { paths: [coreDir] })) as { Logger: unknown };
	return di.Container.get(backendCommon.Logger) as Loggerish;
}

export class SecretCapture {
	readonly accessTokens = new Set<string>();
	readonly signatures = new Set<string>();
	private readonly restorers: Array<() => void> = [];
	private readonly logTexts: string[] = [];
	private readonly consoleTexts: string[] = [];
	private readonly streamTexts: string[] = [];
	private pendingValues: unknown[] = [];
	readonly figures: ScanFigures = {
		scannedChars: 0,
		scannedValues: 0,
		logCalls: 0,
		packLogCalls: 0,
		consoleCalls: 0,
		streamWrites: 0,
		accessTokens: 0,
		signatures: 0,
		hits: [],
	};

	constructor(private readonly fixed: () => FixedSecrets) {}

	/** Spies on the sandbox's token issuing and signature checks, n8n's Logger, console and the std streams. */
	start(): void {
		const issue = TokenStore.prototype.issue;
		const tokens = this.accessTokens;
		const issueSpy = jest.spyOn(TokenStore.prototype, 'issue').mockImplementation(function (this: TokenStore, ...args) {
			const response = issue.apply(this, args);
			tokens.add(response.access_token);
			return response;
		});
		this.restorers.push(() => issueSpy.mockRestore());

		const verify = sandboxSignature.verifyRequestSignature;
		const signatures = this.signatures;
		const verifySpy = jest.spyOn(sandboxSignature, 'verifyRequestSignature').mockImplementation((request, secret, now) => {
			if (request.signatureHeader) signatures.add(request.signatureHeader.trim().toLowerCase());
			return verify(request, secret, now);
		});
		this.restorers.push(() => verifySpy.mockRestore());

		const logger = n8nCoreLogger();
		for (const level of LOG_LEVELS) {
			const original = logger[level].bind(logger);
			const spy = jest.spyOn(logger, level).mockImplementation((message: string, metadata?: unknown) => {
				this.figures.logCalls++;
				if (/Money (API|Trigger)/.test(String(message))) this.figures.packLogCalls++;
				this.logTexts.push(`${level} ${renderForScan({ message, metadata })}`);
				original(message, metadata);
			});
			this.restorers.push(() => spy.mockRestore());
		}

		for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
			const original = console[method];
			const spy = jest.spyOn(console, method).mockImplementation((...args: unknown[]) => {
				this.figures.consoleCalls++;
				this.consoleTexts.push(`${renderForScan(args)}\n${format(...args)}`);
				original.apply(console, args);
			});
			this.restorers.push(() => spy.mockRestore());
		}

		for (const stream of [process.stdout, process.stderr]) {
			const write = stream.write;
			const texts = this.streamTexts;
			const figures = this.figures;
			stream.write = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]): boolean {
				figures.streamWrites++;
				texts.push(typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
				return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
			} as typeof stream.write;
			this.restorers.push(() => {
				stream.write = write;
			});
		}
	}

	stop(): void {
		for (const restore of this.restorers.splice(0).reverse()) restore();
	}

	/** Queues anything produced (run data, error items, webhook answers) for the next scan. */
	add(value: unknown): void {
		this.pendingValues.push(value);
	}

	/** Adds a signature computed by the test itself (webhook deliveries it signs). */
	addSignature(signature: string): void {
		this.signatures.add(signature.trim().toLowerCase());
	}

	/**
	 * Scans what was queued and captured since the last call for every secret known now. Long hex
	 * runs are checked window by window against the signature set, tokens by their prefix and
	 * their random part, so that tens of thousands of signatures scan in linear time.
	 */
	scan(): string[] {
		const texts: string[] = [];
		for (const value of this.pendingValues.splice(0)) {
			this.figures.scannedValues++;
			texts.push(renderForScan(value));
		}
		texts.push(...this.logTexts.splice(0), ...this.consoleTexts.splice(0), ...this.streamTexts.splice(0));
		const hits: string[] = [];
		const fixed = Object.entries(this.fixed()).filter(([, secret]) => typeof secret === 'string' && secret.length >= 4);
		const tokenBodies = [...this.accessTokens].map((token) => token.slice(TOKEN_PREFIX.length));
		const mask = [...fixed.map(([, secret]) => secret), ...tokenBodies];
		for (const text of texts) {
			this.figures.scannedChars += text.length;
			for (const [name, secret] of fixed) if (occursIn(text, secret)) hits.push(`${name} in: ${excerpt(text, secret, mask)}`);
			if (text.includes(TOKEN_PREFIX)) hits.push(`access token in: ${excerpt(text, TOKEN_PREFIX, mask)}`);
			for (const body of tokenBodies) if (text.includes(body)) hits.push(`access token (random part) in: ${excerpt(text, body, mask)}`);
			for (const match of text.matchAll(HEX_RUN)) {
				const run = match[0].toLowerCase();
				for (let start = 0; start + 64 <= run.length; start++) {
					const window = run.slice(start, start + 64);
					if (this.signatures.has(window)) hits.push(`signature in: ${excerpt(text, match[0], mask)}`);
				}
			}
		}
		this.figures.accessTokens = this.accessTokens.size;
		this.figures.signatures = this.signatures.size;
		this.figures.hits.push(...hits);
		return hits;
	}
}

/** Where a secret was found, with every known secret and token in the excerpt masked. */
function excerpt(text: string, secret: string, mask: string[]): string {
	const index = text.indexOf(secret);
	let window = text.slice(Math.max(0, index - 60), index + secret.length + 60);
	for (const value of [secret, ...mask]) window = window.split(value).join(`[${value.length} chars]`);
	return JSON.stringify(window.replace(/sbx_at_[A-Za-z0-9_-]*/g, '[token]'));
}
