<#
.SYNOPSIS
Builds the Windows bundle of Agent Desk and archives it.

.DESCRIPTION
    powershell -ExecutionPolicy Bypass -File packaging\build-windows.ps1 [-NoInstall]

1. installs the app with its build extra (PyInstaller) into the current Python, unless -NoInstall;
2. runs PyInstaller on build.spec, which gives the one-folder bundle dist\AgentDesk\;
3. signs dist\AgentDesk\AgentDesk.exe with signtool when WINDOWS_SIGN_CERT (a .pfx file) and
   WINDOWS_SIGN_PASSWORD are set;
4. runs the bundle's self-test and stops if it fails (the exe has no console: its report is
   read from %LOCALAPPDATA%\AgentDesk\Logs\self-test.txt, or %AGENTDESK_HOME%\logs\);
5. packs the bundle as dist\AgentDesk-<version>-windows-x64.zip (folder AgentDesk\ inside).

Runs from any folder. The environment variable PYTHON names another interpreter than `python`.

.PARAMETER NoInstall
Skip `python -m pip install -e ".[build]"` (the app and PyInstaller are installed already).
#>
[CmdletBinding()]
param(
    [switch]$NoInstall
)

Set-StrictMode -Version 3.0
$ErrorActionPreference = 'Stop'

function Write-Step([string]$Message) {
    Write-Host ""
    Write-Host "==> $Message" -ForegroundColor Cyan
}

# Runs a program and throws when its exit code is not 0. Its stderr (PyInstaller's warnings, say)
# goes to the console without becoming a PowerShell error.
function Invoke-Native([string]$FilePath, [string[]]$Arguments) {
    $saved = $ErrorActionPreference
    $ErrorActionPreference = 'Continue'
    try {
        & $FilePath @Arguments
        $code = $LASTEXITCODE
    } finally {
        $ErrorActionPreference = $saved
    }
    if ($code -ne 0) {
        throw "$FilePath $($Arguments -join ' ') failed with exit code $code"
    }
}

function Find-SignTool {
    $onPath = Get-Command signtool.exe -ErrorAction SilentlyContinue
    if ($onPath) { return $onPath.Source }
    $kits = Join-Path ${env:ProgramFiles(x86)} 'Windows Kits\10\bin'
    $found = Get-ChildItem -Path $kits -Filter signtool.exe -Recurse -ErrorAction SilentlyContinue |
        Where-Object { $_.Directory.Name -eq 'x64' } |
        Sort-Object { $_.Directory.Parent.Name } -Descending |
        Select-Object -First 1
    if (-not $found) {
        throw 'signtool.exe was not found: install the Windows SDK (its "Signing Tools") or put signtool on PATH'
    }
    return $found.FullName
}

$root = Split-Path -Parent $PSScriptRoot
Push-Location $root
try {
    $python = if ($env:PYTHON) { $env:PYTHON } else { 'python' }
    $bundle = Join-Path $root 'dist\AgentDesk'
    $exe = Join-Path $bundle 'AgentDesk.exe'

    $signCert = $env:WINDOWS_SIGN_CERT
    $signPassword = $env:WINDOWS_SIGN_PASSWORD
    if ([bool]$signCert -ne [bool]$signPassword) {
        throw 'Set both WINDOWS_SIGN_CERT and WINDOWS_SIGN_PASSWORD to sign, or neither'
    }
    if ($signCert -and -not (Test-Path -LiteralPath $signCert -PathType Leaf)) {
        throw "WINDOWS_SIGN_CERT names $signCert, which does not exist"
    }

    if (-not $NoInstall) {
        Write-Step 'Installing Agent Desk with its build tools'
        Invoke-Native $python @('-m', 'pip', 'install', '-q', '-e', '.[build]')
    }

    $version = (& $python -c 'import app; print(app.__version__)' | Out-String).Trim()
    if ($LASTEXITCODE -ne 0 -or -not $version) { throw 'Could not read the version from app.__version__' }
    $arch = 'x64'
    $zip = Join-Path $root "dist\AgentDesk-$version-windows-$arch.zip"

    Write-Step "Building the bundle with PyInstaller (Agent Desk $version)"
    Invoke-Native $python @('-m', 'PyInstaller', '--noconfirm', '--clean', '--log-level', 'WARN', 'build.spec')
    if (-not (Test-Path -LiteralPath $exe -PathType Leaf)) { throw "PyInstaller gave no $exe" }

    if ($signCert) {
        Write-Step 'Signing AgentDesk.exe'
        $signtool = Find-SignTool
        Invoke-Native $signtool @('sign', '/fd', 'SHA256', '/tr', 'http://timestamp.digicert.com', '/td', 'SHA256',
                                  '/f', $signCert, '/p', $signPassword, $exe)
        Invoke-Native $signtool @('verify', '/pa', $exe)
    } else {
        Write-Step 'Not signing (WINDOWS_SIGN_CERT is not set): SmartScreen will warn on first start'
    }

    # The exe is windowed: it has no stdout, so the self-test writes its report to the log folder.
    Write-Step 'Self-test of the bundle'
    $logDir = if ($env:AGENTDESK_HOME -and $env:AGENTDESK_HOME.Trim()) {
        Join-Path $env:AGENTDESK_HOME.Trim() 'logs'
    } else {
        Join-Path $env:LOCALAPPDATA 'AgentDesk\Logs'
    }
    $report = Join-Path $logDir 'self-test.txt'
    Remove-Item -LiteralPath $report -ErrorAction SilentlyContinue
    $process = Start-Process -FilePath $exe -ArgumentList '--self-test' -Wait -PassThru
    if (Test-Path -LiteralPath $report) {
        Get-Content -LiteralPath $report | Write-Host
    } else {
        Write-Warning "The self-test left no report at $report"
    }
    if ($process.ExitCode -ne 0) {
        throw "The bundle's self-test failed (exit code $($process.ExitCode)); no archive was made"
    }

    Write-Step 'Bundle size'
    $bytes = (Get-ChildItem -LiteralPath $bundle -Recurse -File | Measure-Object -Property Length -Sum).Sum
    Write-Host ('{0:N0} MB  {1}' -f ($bytes / 1MB), $bundle)

    Write-Step 'Archiving'
    if (Test-Path -LiteralPath $zip) { Remove-Item -LiteralPath $zip }
    Compress-Archive -LiteralPath $bundle -DestinationPath $zip -CompressionLevel Optimal
    Write-Host ('{0:N0} MB  {1}' -f ((Get-Item -LiteralPath $zip).Length / 1MB), $zip)

    Write-Host ""
    Write-Host "Built $zip"
} finally {
    Pop-Location
}
