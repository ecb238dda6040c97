-- A session in Neovim's built-in LSP client (headless), with dmalint --lsp
-- and clangd attached to the same buffer, as a kernel author would have it.
-- Run by test_neovim.py:
--
--   nvim --headless --clean -n -c "luafile neovim_session.lua"
--
-- with DMALINT, CLANGD, KERNEL (the file to edit), ROOT (its project) and OUT
-- (where the record goes) in the environment. Neovim 0.7 (Debian 12) has
-- vim.lsp.start_client and buf_attach_client (vim.lsp.start came in 0.8).
-- The script records what Neovim itself made of what the servers sent
-- (vim.diagnostic, per client's namespace) and writes it as JSON; the Python
-- side judges it.

local env = vim.env
local record = { steps = {}, errors = {} }
local published = {} -- client name -> list of { version, count }

local function fail(message)
  table.insert(record.errors, message)
end

local function write_record_and_quit()
  local file = io.open(env.OUT, "w")
  file:write(vim.fn.json_encode(record))
  file:close()
  vim.cmd("qall!")
end

local ok, err = pcall(function()
  vim.cmd("edit " .. vim.fn.fnameescape(env.KERNEL))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.bo[bufnr].filetype = "cpp"

  local function start(name, cmd)
    return vim.lsp.start_client({
      name = name,
      cmd = cmd,
      root_dir = env.ROOT,
      handlers = {
        ["textDocument/publishDiagnostics"] = function(e, result, ctx, config)
          published[name] = published[name] or {}
          table.insert(published[name], { version = result.version, count = #result.diagnostics })
          return vim.lsp.diagnostic.on_publish_diagnostics(e, result, ctx, config)
        end,
      },
    })
  end
  local dmalint = start("dmalint", { env.DMALINT, "--lsp" })
  local clangd = start("clangd", { env.CLANGD, "--clang-tidy=false", "--log=error" })
  if not dmalint or not clangd then
    error("a server did not start")
  end
  vim.lsp.buf_attach_client(bufnr, dmalint)
  vim.lsp.buf_attach_client(bufnr, clangd)

  local function diagnostics_of(client_id)
    local out = {}
    for _, d in ipairs(vim.diagnostic.get(bufnr, { namespace = vim.lsp.diagnostic.get_namespace(client_id) })) do
      local lsp = d.user_data and d.user_data.lsp or {}
      local notes = {}
      for _, info in ipairs(lsp.relatedInformation or {}) do
        table.insert(notes, { message = info.message, line = info.location.range.start.line,
                              character = info.location.range.start.character })
      end
      table.insert(out, { lnum = d.lnum, col = d.col, end_col = d.end_col, message = d.message,
                          source = d.source, code = d.code, severity = d.severity,
                          href = lsp.codeDescription and lsp.codeDescription.href or vim.NIL,
                          notes = notes })
    end
    table.sort(out, function(a, b) return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col) end)
    return out
  end

  -- The version Neovim last sent for the buffer.
  local function version()
    return vim.lsp.util.buf_versions[bufnr]
  end
  local function published_for(name, v)
    for _, p in ipairs(published[name] or {}) do
      if p.version == v then return true end
    end
    return false
  end
  local function wait(what, condition)
    if not vim.wait(120000, condition, 20) then
      error("timed out waiting for " .. what)
    end
  end
  local function step(name)
    table.insert(record.steps, {
      name = name,
      version = version(),
      dmalint = diagnostics_of(dmalint),
      clangd = diagnostics_of(clangd),
      text = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n") .. "\n",
    })
  end

  -- 1. Open: both servers publish; Neovim's first version is 0.
  wait("both servers' diagnostics", function()
    return published_for("dmalint", version()) and published.clangd ~= nil
  end)
  wait("clangd's warning", function() return #diagnostics_of(clangd) > 0 end)
  step("open")

  -- 2. Type a new bug (a local copy waited on its send side) where the
  -- kernel says so, one keystroke-sized edit at a time.
  local marker
  for i, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    if line:find("// type here", 1, true) then marker = i - 1 end
  end
  local typed = {
    "  AsyncCopyDescriptor staging = make_async_copy(hbm, vmem, sem);",
    "  staging.start();",
    "  staging.wait_send();",
    "  staging.wait_recv();",
  }
  for n, line in ipairs(typed) do
    vim.api.nvim_buf_set_lines(bufnr, marker + n - 1, marker + n - 1, false, { "" })
    for k = 1, #line, 8 do
      local row = marker + n - 1
      local col = #vim.api.nvim_buf_get_lines(bufnr, row, row + 1, false)[1]
      vim.api.nvim_buf_set_text(bufnr, row, col, row, col, { line:sub(k, k + 7) })
    end
  end
  wait("dmalint's diagnostics of the typed text", function()
    return published_for("dmalint", version())
  end)
  step("typed")

  -- 3. Apply dmalint's quick fixes one at a time, as `:lua vim.lsp.buf.code_action()`
  -- would, until dmalint reports nothing.
  local client = vim.lsp.get_client_by_id(dmalint)
  for _ = 1, 10 do
    local diagnostics = vim.diagnostic.get(bufnr, { namespace = vim.lsp.diagnostic.get_namespace(dmalint) })
    if #diagnostics == 0 then break end
    local d = diagnostics[1].user_data.lsp
    local lsp_diagnostic = vim.lsp.diagnostic.get_line_diagnostics(bufnr, diagnostics[1].lnum, {}, dmalint)[1]
    local params = {
      textDocument = vim.lsp.util.make_text_document_params(bufnr),
      range = lsp_diagnostic.range,
      context = { diagnostics = { lsp_diagnostic } },
    }
    local responses = vim.lsp.buf_request_sync(bufnr, "textDocument/codeAction", params, 60000)
    local action = responses and responses[dmalint] and responses[dmalint].result and responses[dmalint].result[1]
    if not action then
      error("no code action from dmalint for: " .. (d.code or "?"))
    end
    table.insert(record.steps, { name = "action", title = action.title, kind = action.kind,
                                 preferred = action.isPreferred })
    vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding)
    wait("dmalint's diagnostics after the fix", function()
      return published_for("dmalint", version())
    end)
  end
  step("fixed")

  record.offset_encoding = client.offset_encoding
  vim.lsp.stop_client({ dmalint, clangd })
  wait("the servers to exit", function()
    return vim.lsp.get_client_by_id(dmalint) == nil and vim.lsp.get_client_by_id(clangd) == nil
  end)
end)
if not ok then
  fail(tostring(err))
end
record.published = published
write_record_and_quit()
