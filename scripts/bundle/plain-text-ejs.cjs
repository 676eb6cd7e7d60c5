// The `ejs` package as oclif sees it in the bundle. oclif renders every summary, description and
// example it prints through ejs.render, for the few that hold a tag (`<%= config.bin %>`); ejs
// compiles each text into a new function first, also a text with no tag at all: about a tenth of
// the CPU of `--help`. A text with neither `<%` nor `%>` renders to itself in ejs (a stray `%>`
// would be dropped, so such a text still goes to ejs), and is returned as it is; everything
// else is the package itself.
'use strict'

const ejs = require('ejs')

module.exports = new Proxy(ejs, {
  get(target, key) {
    if (key !== 'render') return target[key]
    return (template, ...rest) => (typeof template === 'string' && !template.includes('<%') && !template.includes('%>') ? template : target.render(template, ...rest))
  },
})
