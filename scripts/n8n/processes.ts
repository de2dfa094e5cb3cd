/** Loopback ports, process groups the scripts start, and their memory. */

import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ChildProcess } from 'node:child_process';

/**
 * Ports handed out by freePort: below the kernel's ephemeral range (32768 and up on Linux), which
 * the OS also uses for the local end of every outgoing connection, so a port picked there can be
 * taken by a connection before the server that was given it binds it. Each port is reserved
 * machine-wide by a file named after it (its content the reserving process's pid) until that
 * process ends, so suites side by side never get the same port for any of their servers.
 */
const PORT_RANGE = { from: 20_000, to: 32_000 };
const RESERVATIONS = path.join(os.tmpdir(), 'n8n-nodes-money-ports');

/** Whether a process with this pid exists (EPERM: it does, as another user's). */
export function pidAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (err) {
		return (err as NodeJS.ErrnoException).code === 'EPERM';
	}
}

/** Reserves `port` for this process; false when a live process holds it. */
function reserve(port: number): boolean {
	fs.mkdirSync(RESERVATIONS, { recursive: true });
	const file = path.join(RESERVATIONS, String(port));
	for (let attempt = 0; attempt < 2; attempt++) {
		try {
			fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
			return true;
		} catch {
			const holder = Number(fs.readFileSync(file, 'utf8').trim() || 0);
			if (holder === process.pid) return false;
			if (holder > 0 && pidAlive(holder)) return false;
			fs.rmSync(file, { force: true });
		}
	}
	return false;
}

/** A free TCP port on 127.0.0.1 for a server of ours, reserved for this process (see PORT_RANGE). */
export async function freePort(): Promise<number> {
	for (let tries = 0; tries < 500; tries++) {
		const port = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from));
		if (!reserve(port)) continue;
		if (await portFree(port)) return port;
	}
	throw new Error(`no free port between ${PORT_RANGE.from} and ${PORT_RANGE.to} after 500 tries`);
}

/** Whether `port` on 127.0.0.1 can be listened on. */
export function portFree(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const srv = net.createServer();
		srv.once('error', () => resolve(false));
		srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
	});
}

/** Whether something accepts connections on `port` of 127.0.0.1. */
export function canConnect(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		socket.once('connect', () => {
			socket.destroy();
			resolve(true);
		});
		socket.once('error', () => resolve(false));
	});
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Remember a detached child so that it is killed, with its process group, if this process exits first. */
export function track(child: ChildProcess): void {
	live.add(child);
	child.once('exit', () => live.delete(child));
	if (!exitHookInstalled) {
		exitHookInstalled = true;
		// Last resort: never leave an n8n (and its task runner) behind when the caller dies.
		process.once('exit', () => {
			for (const c of live) killGroup(c, 'SIGKILL');
		});
	}
}

/** Signal a detached child's process group (the child leads it), or the child alone. */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.exitCode !== null || child.signalCode !== null) return;
	try {
		process.kill(-(child.pid as number), signal); // the child leads its own process group (detached)
	} catch {
		try {
			child.kill(signal);
		} catch {
			/* gone */
		}
	}
}

export interface ProcessMemory {
	totalKb: number;
	processes: Array<{ pid: number; rssKb: number; cmd: string }>;
}

/** Resident memory (KB) of a process and its descendants, from /proc. */
export function processTreeRssKb(pid: number): ProcessMemory {
	const children = new Map<number, number[]>();
	for (const d of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(d)) continue;
		try {
			const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
			const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
			if (!children.has(ppid)) children.set(ppid, []);
			children.get(ppid)!.push(Number(d));
		} catch {
			/* gone */
		}
	}
	const result: ProcessMemory['processes'] = [];
	const walk = (p: number): void => {
		try {
			const status = fs.readFileSync(`/proc/${p}/status`, 'utf8');
			const rss = Number((status.match(/VmRSS:\s+(\d+)/) || [])[1] || 0);
			const cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').join(' ').trim();
			result.push({ pid: p, rssKb: rss, cmd });
		} catch {
			return;
		}
		for (const c of children.get(p) || []) walk(c);
	};
	walk(pid);
	return { totalKb: result.reduce((s, r) => s + r.rssKb, 0), processes: result };
}
