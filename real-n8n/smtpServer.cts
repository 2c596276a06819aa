import type { Socket } from 'node:net';
import { createServer } from 'node:net';

/** An e-mail as the server received it: its recipients and the message's headers and text. */
export interface ReceivedMail {
	to: string[];
	subject: string;
	text: string;
}

/**
 * The smallest SMTP server n8n's Send Email node (nodemailer, without TLS or login) can deliver to, on 127.0.0.1, for
 * the e-mail example of test:n8n: it takes every message and keeps it.
 */
export async function startSmtpServer(): Promise<{ port: number; mails: ReceivedMail[]; stop: () => Promise<void> }> {
	const mails: ReceivedMail[] = [];
	const sockets = new Set<Socket>();
	const server = createServer((socket) => {
		sockets.add(socket);
		socket.on('close', () => sockets.delete(socket));
		socket.setEncoding('utf8');
		let buffer = '';
		let data: string | undefined;
		let to: string[] = [];
		socket.write('220 localhost ESMTP\r\n');
		socket.on('data', (chunk: string) => {
			buffer += chunk;
			for (let end = buffer.indexOf('\r\n'); end !== -1; end = buffer.indexOf('\r\n')) {
				const line = buffer.slice(0, end);
				buffer = buffer.slice(end + 2);
				if (data !== undefined) {
					if (line !== '.') {
						data += `${line.startsWith('..') ? line.slice(1) : line}\n`;
						continue;
					}
					const [headers, ...body] = data.split('\n\n');
					const subject = /^Subject: (.*)$/m.exec(headers)?.[1] ?? '';
					mails.push({ to, subject, text: body.join('\n\n') });
					data = undefined;
					to = [];
					socket.write('250 OK\r\n');
					continue;
				}
				const command = line.slice(0, 4).toUpperCase();
				if (command === 'EHLO' || command === 'HELO') socket.write('250 localhost\r\n');
				else if (command === 'RCPT') {
					to.push(/<([^>]*)>/.exec(line)?.[1] ?? '');
					socket.write('250 OK\r\n');
				} else if (command === 'DATA') {
					data = '';
					socket.write('354 End data with <CR><LF>.<CR><LF>\r\n');
				} else if (command === 'QUIT') socket.end('221 Bye\r\n');
				else socket.write('250 OK\r\n');
			}
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	return {
		port,
		mails,
		stop: async () => {
			for (const socket of sockets) socket.destroy();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}
