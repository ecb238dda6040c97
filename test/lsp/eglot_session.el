;;; eglot_session.el --- an editing session in Emacs' eglot with dmalint --lsp -*- lexical-binding: t -*-
;;
;; Run by test_eglot.py:
;;
;;   emacs --batch -Q -l eglot_session.el
;;
;; with DMALINT, KERNEL (the file to edit), ROOT (its project) and OUT (where
;; the record goes) in the environment. Eglot manages one server per major
;; mode and project, so dmalint is the buffer's only server here (clangd
;; cannot be beside it, docs/editors.md). The script opens the kernel, waits
;; for dmalint's diagnostics as Flymake holds them, types a bug, applies
;; dmalint's quick fixes through eglot's own code-action and workspace-edit
;; code, and records what Emacs made of each step as JSON; the Python side
;; judges it.

(require 'eglot)
(require 'jsonrpc)

(defvar session-record (list :steps [] :errors []))
(defvar session-published nil "The versions of the kernel dmalint published, newest first.")

(defun session-push (key value)
  (plist-put session-record key (vconcat (plist-get session-record key) (list value))))

(defun session-wait (what condition)
  "Process input (the server's messages, eglot's and Flymake's timers) until
CONDITION holds; signal an error after two minutes."
  (let ((deadline (+ (float-time) 120)))
    (while (not (funcall condition))
      (when (> (float-time) deadline)
        (error "timed out waiting for %s" what))
      (accept-process-output nil 0.02))))

(defun session-version ()
  (plist-get (eglot--VersionedTextDocumentIdentifier) :version))

(defun session-published-p (version)
  (memq version session-published))

(defun session-diagnostics ()
  "dmalint's diagnostics as Flymake holds them: Flymake's line and type, with
the LSP diagnostic eglot keeps with each (message, code, href, notes)."
  (let (out)
    (dolist (d (flymake-diagnostics (point-min) (point-max)))
      (let ((lsp (cdr (assoc 'eglot-lsp-diag (flymake-diagnostic-data d)))))
        (push (list :lnum (1- (line-number-at-pos (flymake-diagnostic-beg d)))
                    :type (symbol-name (flymake-diagnostic-type d))
                    :text (flymake-diagnostic-text d)
                    :lsp lsp)
              out)))
    (vconcat (sort out (lambda (a b) (< (plist-get a :lnum) (plist-get b :lnum)))))))

(defun session-step (name)
  (session-push :steps (list :name name :version (session-version)
                             :dmalint (session-diagnostics)
                             :text (buffer-substring-no-properties (point-min) (point-max)))))

(defun session-wait-for-findings (what)
  "Wait for dmalint's diagnostics of the buffer's current version to reach Flymake."
  (let ((version nil))
    ;; eglot sends the change when Emacs has been idle for
    ;; `eglot-send-changes-idle-time'; the version is known after that.
    (eglot--signal-textDocument/didChange)
    (setq version (session-version))
    (session-wait what (lambda () (session-published-p version)))
    (session-flymake (concat what " in Flymake"))))

(defun session-flymake (what)
  "Run Flymake (eglot's backend reports what the server last published) and
wait for the report."
  (flymake-start nil t)
  (session-wait what (lambda () (memq 'eglot-flymake-backend (flymake-reporting-backends)))))

(advice-add 'eglot-handle-notification :after
            (lambda (_server method &rest params)
              (when (eq method 'textDocument/publishDiagnostics)
                (push (plist-get params :version) session-published))))

(condition-case err
    (progn
      (setq eglot-server-programs `((c++-mode . (,(getenv "DMALINT") "--lsp"))))
      (find-file (getenv "KERNEL"))
      (c++-mode)
      (apply #'eglot (eglot--guess-contact))
      (session-wait "eglot to manage the buffer" (lambda () (eglot-managed-p)))

      ;; 1. Open.
      (session-wait "dmalint's diagnostics of the opened file"
                    (lambda () (session-published-p (session-version))))
      (session-flymake "dmalint's diagnostics of the opened file in Flymake")
      (session-step "open")

      ;; 2. Type a new bug at the marker, a few characters at a time.
      (goto-char (point-min))
      (search-forward "// type here")
      (beginning-of-line)
      (dolist (line '("  AsyncCopyDescriptor staging = make_async_copy(hbm, vmem, sem);"
                      "  staging.start();"
                      "  staging.wait_send();"
                      "  staging.wait_recv();"))
        (let ((text (concat line "\n")))
          (while (> (length text) 0)
            (insert (substring text 0 (min 8 (length text))))
            (setq text (substring text (min 8 (length text))))
            (accept-process-output nil 0.001))))
      (session-wait-for-findings "dmalint's diagnostics of the typed text")
      (session-step "typed")

      ;; 3. The quick fixes, one at a time, as `eglot-code-action-quickfix'
      ;; offers them (its preferred action), until dmalint reports nothing.
      (let ((rounds 0))
        (while (and (> (length (session-diagnostics)) 0) (< rounds 10))
          (setq rounds (1+ rounds))
          (let* ((d (car (flymake-diagnostics (point-min) (point-max))))
                 (actions (eglot-code-actions (flymake-diagnostic-beg d)
                                              (flymake-diagnostic-end d) "quickfix"))
                 (action (or (seq-find (lambda (a) (eq (plist-get a :isPreferred) t)) actions)
                             (car actions))))
            (unless action
              (error "no quick fix from dmalint for %s" (flymake-diagnostic-text d)))
            (session-push :steps (list :name "action" :title (plist-get action :title)
                                       :kind (plist-get action :kind)
                                       :preferred (plist-get action :isPreferred)))
            (eglot--apply-workspace-edit (plist-get action :edit))
            (session-wait-for-findings "dmalint's diagnostics after the fix"))))
      (session-step "fixed")
      (eglot-shutdown (eglot-current-server)))
  (error (session-push :errors (error-message-string err))))

(with-temp-file (getenv "OUT")
  (insert (jsonrpc--json-encode session-record)))
(kill-emacs 0)
