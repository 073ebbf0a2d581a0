#!/bin/sh
echo outline
