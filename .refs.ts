import { readFileSync } from 'node:fs';
import ts from 'typescript';
const file = process.argv[2]!;
const text = readFileSync(file, 'utf8');
const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
const names = process.argv.slice(3);
// for each name, which top-level declarations reference it (other than itself)
const decls = sf.statements.map((s) => ({ name: ts.getNameOfDeclaration(s as ts.DeclarationStatement)?.getText(), text: s.getText().replace(/\/\*\*[\s\S]*?\*\//g, '') }));
for (const n of names) {
  const re = new RegExp(`\\b${n}\\b`);
  const by = decls.filter((d) => d.name && d.name !== n && re.test(d.text)).map((d) => d.name);
  console.log(n.padEnd(24), by.join(' '));
}
