import { inspect } from 'node:util';

export interface SecretSet {
	clientSecret?: string;
	apiKey?: string;
	hmacSecret?: string;
	webhookSecret?: string;
	pin?: string;
	accessTokens?: string[];
	signatures?: string[];
}

export function secretValues(secrets: SecretSet): string[] {
	const values = [
		secrets.clientSecret,
		secrets.apiKey,
		secrets.hmacSecret,
		secrets.webhookSecret,
		secrets.pin,
		...(secrets.accessTokens ?? []),
		...(secrets.signatures ?? []),
	];
	return values.filter((value): value is string => typeof value === 'string' && value.length >= 4);
}

/** Every string reachable from `value` (including Error messages, descriptions, causes and stacks). */
export function renderForScan(value: unknown): string {
	const seen = new Set<unknown>();
	const parts: string[] = [];
	const visit = (entry: unknown): void => {
		if (entry === null || entry === undefined) return;
		if (typeof entry === 'string') {
			parts.push(entry);
			return;
		}
		if (typeof entry !== 'object' && typeof entry !== 'function') {
			parts.push(String(entry));
			return;
		}
		if (seen.has(entry)) return;
		seen.add(entry);
		if (Buffer.isBuffer(entry)) {
			parts.push(entry.toString('utf8'));
			return;
		}
		if (entry instanceof Error) parts.push(entry.message, entry.stack ?? '');
		for (const key of Object.getOwnPropertyNames(entry)) {
			parts.push(key);
			try {
				visit((entry as Record<string, unknown>)[key]);
			} catch {
				parts.push('<unreadable>');
			}
		}
	};
	visit(value);
	parts.push(inspect(value, { depth: 8 }));
	return parts.join('\n');
}

/** Below this length a secret is a PIN, sought as a whole token only (see occursIn). */
const WHOLE_TOKEN_BELOW = 8;

function escapeRegExp(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Whether `secret` occurs in `text`. A short secret (a 4-digit PIN) also occurs by chance inside
 * random hex and base64 (references, keys, ciphertexts): it counts only where no letter or digit
 * touches it, as in `"pin":"1234"`, `PIN 1234` or `pin=1234&`. Longer secrets count anywhere.
 */
export function occursIn(text: string, secret: string): boolean {
	if (secret.length >= WHOLE_TOKEN_BELOW) return text.includes(secret);
	return new RegExp(`(?<![0-9A-Za-z])${escapeRegExp(secret)}(?![0-9A-Za-z])`).test(text);
}

/** Names of the secrets found in `value`; empty when none leaked. */
export function findSecrets(value: unknown, secrets: SecretSet): string[] {
	const text = renderForScan(value);
	return secretValues(secrets).filter((secret) => occursIn(text, secret)).map((secret) => `${secret.slice(0, 2)}…(${secret.length} chars)`);
}
