/**
 * A loopback SMTP sink for the e2e tier's Human review checks: n8n's Send Email node, its `smtp`
 * credential pointed at `port` (no TLS, no login), delivers its review mails here. Every message is
 * kept with its body decoded (quoted-printable or base64), for a check to read what the reviewer
 * sees and follow the approve or deny link in it.
 */

import * as net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface Mail {
	subject: string;
	to: string[];
	/** The body, its transfer encoding undone (HTML for a review mail). */
	body: string;
}

export interface MailSink {
	port: number;
	mails(): Mail[];
	close(): Promise<void>;
}

/** The decoded bytes of a quoted-printable text, read as UTF-8. */
function fromQuotedPrintable(text: string): string {
	const bytes: number[] = [];
	const joined = text.replace(/=\r?\n/g, '');
	for (let i = 0; i < joined.length; i++) {
		const hex = joined[i] === '=' ? joined.slice(i + 1, i + 3) : '';
		if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
			bytes.push(parseInt(hex, 16));
			i += 2;
		} else bytes.push(...Buffer.from(joined[i], 'utf8'));
	}
	return Buffer.from(bytes).toString('utf8');
}

/** One message as the DATA command carried it: headers, then the body in its transfer encoding. */
function parseMail(data: string, to: string[]): Mail {
	const text = data.replace(/^\.\./gm, '.');
	const split = text.search(/\r?\n\r?\n/);
	const head = split < 0 ? text : text.slice(0, split);
	const raw = split < 0 ? '' : text.slice(split).replace(/^\r?\n\r?\n/, '');
	const headers = new Map<string, string>();
	for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
		const colon = line.indexOf(':');
		if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
	}
	const encoding = (headers.get('content-transfer-encoding') ?? '').toLowerCase();
	const body = encoding === 'quoted-printable' ? fromQuotedPrintable(raw) : encoding === 'base64' ? Buffer.from(raw, 'base64').toString('utf8') : raw;
	return { subject: headers.get('subject') ?? '', to, body };
}

export async function startMailSink(): Promise<MailSink> {
	const received: Mail[] = [];
	const sockets = new Set<net.Socket>();
	const server = net.createServer((socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
		socket.on('error', () => socket.destroy());
		let buffer = '';
		let data: string | undefined;
		let to: string[] = [];
		const reply = (line: string) => socket.write(`${line}\r\n`);
		reply('220 e2e-mail-sink ESMTP');
		socket.on('data', (chunk: Buffer) => {
			buffer += chunk.toString('latin1');
			for (;;) {
				if (data !== undefined) {
					const end = buffer.indexOf('\r\n.\r\n');
					if (end < 0) return;
					received.push(parseMail(Buffer.from(data + buffer.slice(0, end), 'latin1').toString('utf8'), to));
					buffer = buffer.slice(end + 5);
					data = undefined;
					to = [];
					reply('250 queued');
					continue;
				}
				const end = buffer.indexOf('\r\n');
				if (end < 0) return;
				const line = buffer.slice(0, end);
				buffer = buffer.slice(end + 2);
				const command = line.slice(0, 4).toUpperCase();
				if (command === 'EHLO') reply('250-e2e-mail-sink\r\n250 8BITMIME');
				else if (command === 'HELO') reply('250 e2e-mail-sink');
				else if (command === 'RCPT') {
					to.push(line.replace(/^RCPT TO:\s*/i, '').replace(/[<>]/g, ''));
					reply('250 OK');
				} else if (command === 'DATA') {
					data = '';
					reply('354 end with <CRLF>.<CRLF>');
				} else if (command === 'QUIT') {
					reply('221 bye');
					socket.end();
				} else reply('250 OK');
			}
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	server.unref();
	return {
		port: (server.address() as AddressInfo).port,
		mails: () => [...received],
		close: () =>
			new Promise<void>((resolve) => {
				for (const socket of sockets) socket.destroy();
				server.close(() => resolve());
			}),
	};
}

/** The review links of a mail (n8n's approve and deny buttons), their HTML entities undone. */
export function reviewLinks(mail: Mail): { approve?: string; deny?: string } {
	const links = [...mail.body.matchAll(/href\s*=\s*["']([^"']*\/webhook-waiting\/[^"']*)["']/g)].map((match) => match[1].replace(/&amp;/g, '&'));
	return {
		approve: links.find((link) => new URL(link).searchParams.get('approved') === 'true'),
		deny: links.find((link) => new URL(link).searchParams.get('approved') === 'false'),
	};
}
