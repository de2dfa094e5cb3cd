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

/** Names of the secrets found in `value`; empty when none leaked. */
export function findSecrets(value: unknown, secrets: SecretSet): string[] {
	const text = renderForScan(value);
	return secretValues(secrets).filter((secret) => text.includes(secret)).map((secret) => `${secret.slice(0, 2)}…(${secret.length} chars)`);
}
